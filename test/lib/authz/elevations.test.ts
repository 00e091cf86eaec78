// Elevate grants in the engine: a role or a group membership in force only between `from` and `until`, checked
// against the clock at every decision (the compiled model stays the same).
import { describe, expect, it } from 'vitest';
import { compileModel } from '../../../lib/authz/compile.ts';
import { evaluate } from '../../../lib/authz/evaluate.ts';
import { searchResources, searchSubjects } from '../../../lib/authz/search.ts';
import type { StoredModel } from '../../../lib/authz/model.ts';
import { ids, todoModel } from './model-fixture.ts';

type Elevation = NonNullable<StoredModel['elevations']>[number];
const HOUR = 3_600_000;
const elevation = (e: Partial<Elevation>): Elevation => ({
  grantId: 'g-1',
  userId: ids.summer,
  roleId: ids.admin,
  groupId: null,
  resources: null,
  from: Date.now() - HOUR,
  until: Date.now() + HOUR,
  ...e,
});
const deleteTodo = (elevations: Elevation[], id = 'todo-1') =>
  evaluate(compileModel('env', todoModel({ elevations })), {
    subject: { type: 'user', id: ids.summer },
    action: { name: 'can_delete_todo' },
    resource: { type: 'todo', id },
  });

describe('elevate grants in decisions', () => {
  it('permit through an elevated role only within its window, naming the grant', () => {
    expect(deleteTodo([elevation({})])).toMatchObject({
      decision: true,
      reason: { role: 'admin', assignmentId: 'g-1', grantId: 'g-1', via: { type: 'user', id: ids.summer } },
    });
    expect(deleteTodo([elevation({ until: Date.now() - 1 })]).decision).toBe(false);
    expect(deleteTodo([elevation({ from: Date.now() + HOUR })]).decision).toBe(false);
    expect(deleteTodo([]).decision).toBe(false);
  });

  it('keeps to the instances an elevated role is limited to', () => {
    const limited = [elevation({ resources: [{ type: 'todo', id: 'todo-2' }] })];
    expect(deleteTodo(limited, 'todo-2').decision).toBe(true);
    expect(deleteTodo(limited, 'todo-1').decision).toBe(false);
  });

  it('makes the user a member of a group while in force, for evaluation and search', () => {
    const membership = [elevation({ roleId: null, groupId: ids.editors })];
    const model = compileModel('env', todoModel({ elevations: membership }));
    const create = evaluate(model, {
      subject: { type: 'user', id: ids.summer },
      action: { name: 'can_create_todo' },
      resource: { type: 'todo', id: 'todo-1' },
    });
    expect(create).toMatchObject({ decision: true, reason: { via: { type: 'group', id: ids.editors }, grantId: 'g-1' } });
    const subjects = searchSubjects(
      model,
      { subject: { type: 'user' }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } },
      { offset: 0, limit: 10 },
    );
    expect(subjects.results).toContainEqual({ type: 'user', id: 'summer@the-smiths.com' });
    const expired = compileModel('env', todoModel({ elevations: [elevation({ roleId: null, groupId: ids.editors, until: Date.now() - 1 })] }));
    const resources = searchResources(
      expired,
      { subject: { type: 'user', id: ids.summer }, action: { name: 'can_create_todo' }, resource: { type: 'todo' } },
      { offset: 0, limit: 10 },
    );
    expect(resources.results).toEqual([]);
  });
});
