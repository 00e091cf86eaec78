import { describe, expect, it } from 'vitest';
import { compileModel } from '../../../lib/authz/compile.ts';
import { evaluate } from '../../../lib/authz/evaluate.ts';
import type { EvaluationRequest } from '../../../lib/authz/types.ts';
import { ids, todoModel } from './model-fixture.ts';

const model = compileModel('env', todoModel());
const ask = (subject: string, action: string, resource: string, extra: Partial<EvaluationRequest> = {}, type = 'todo') =>
  evaluate(model, { subject: { type: 'user', id: subject }, action: { name: action }, resource: { type, id: resource }, ...extra });

describe('access evaluation', () => {
  it('permits through a role held directly, and explains which role, assignment and permission', () => {
    expect(ask('rick@the-citadel.com', 'can_delete_todo', 'todo-1')).toEqual({
      decision: true,
      reason: {
        permitted: true,
        role: 'admin',
        assignedRole: 'admin',
        assignmentId: 'a-rick-admin',
        via: { type: 'user', id: ids.rick },
        permission: 'todo:can_delete_todo',
        conditions: [],
      },
    });
  });

  it('resolves a subject by id, externalId or userName (case-insensitively), as type user or identity, by default (`any`)', () => {
    for (const id of [ids.rick, 'CiRmZDA2', 'RICK@the-citadel.com']) {
      for (const type of ['user', 'identity']) {
        expect(evaluate(model, { subject: { type, id }, action: { name: 'can_delete_todo' }, resource: { type: 'todo', id: 'todo-1' } }).decision).toBe(true);
      }
    }
    expect(ask('ciRmZDA2', 'can_delete_todo', 'todo-1').reason).toMatchObject({ code: 'unknown_subject' }); // an externalId compares exactly
    expect(model.subjectIdentifier).toBe('any');
  });

  it('decides the interop Todo shape by default: an `identity` named by its opaque IdP id (externalId), conditions on its email', () => {
    const m = compileModel(
      'env',
      todoModel({ assignments: [{ id: 'a', roleId: ids.editor, userId: ids.rick, groupId: null, resources: null, condition: null }] }),
    );
    const update = (todo: string) =>
      evaluate(m, { subject: { type: 'identity', id: 'CiRmZDA2' }, action: { name: 'can_update_todo' }, resource: { type: 'todo', id: todo } });
    expect(update('todo-2')).toMatchObject({ decision: true, reason: { role: 'editor', via: { type: 'user', id: ids.rick } } }); // owned by rick's email
    expect(update('todo-1').decision).toBe(false);
  });

  it('resolves a subject by an explicit kind only (userName and email ignoring case), as type user or identity', () => {
    const kinds = [
      ['userName', 'RICK@the-citadel.com'],
      ['externalId', 'CiRmZDA2'],
      ['id', ids.rick],
      ['email', 'Rick@The-Citadel.com'],
    ] as const;
    for (const [kind, named] of kinds) {
      const m = compileModel('env', todoModel({ subjectIdentifier: kind }));
      for (const [other, id] of kinds) {
        for (const type of ['user', 'identity']) {
          const decision = evaluate(m, { subject: { type, id }, action: { name: 'can_delete_todo' }, resource: { type: 'todo', id: 'todo-1' } }).decision;
          // userName and email are the same string in this fixture.
          expect(decision, `${kind} ${other}`).toBe(id === named || (kind === 'userName' && other === 'email') || (kind === 'email' && other === 'userName'));
        }
      }
    }
  });

  it('under `any`, an id two subjects share (saved before uniqueness across kinds held) names neither', () => {
    const base = todoModel();
    // summer's externalId is rick's userName in another case; morty's is rick's id; an Editors' twin group is named by Editors' id.
    const users = base.users.map((u) =>
      u.id === ids.summer ? { ...u, externalId: 'Rick@The-Citadel.com' } : u.id === ids.morty ? { ...u, externalId: ids.rick } : u,
    );
    const groups = [...base.groups, { id: ids.doc, name: ids.editors, externalId: null, attributes: {} }];
    const m = compileModel('env', { ...base, users, groups });
    const who = (id: string, type = 'user') =>
      evaluate(m, { subject: { type, id }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } }).reason;
    expect(who('Rick@The-Citadel.com')).toMatchObject({ code: 'unknown_subject' });
    expect(who('rick@the-citadel.com')).toMatchObject({ code: 'unknown_subject' });
    expect(who(ids.rick)).toMatchObject({ code: 'unknown_subject' });
    expect(who('CiRmZDA2')).toMatchObject({ permitted: true, via: { type: 'user', id: ids.rick } }); // rick's own externalId is his alone
    expect(who(ids.editors, 'group')).toMatchObject({ code: 'unknown_subject' });
    expect(who('editors', 'group')).toMatchObject({ permitted: true, via: { type: 'group', id: ids.editors } });
    // Under userName, the same data names rick by his userName only.
    const byUserName = compileModel('env', { ...base, users, groups, subjectIdentifier: 'userName' });
    expect(
      evaluate(byUserName, {
        subject: { type: 'user', id: 'RICK@the-citadel.com' },
        action: { name: 'can_read_todos' },
        resource: { type: 'todo', id: 'todo-1' },
      }).decision,
    ).toBe(true);
  });

  it('follows inheritance transitively: admin inherits editor, which inherits viewer', () => {
    const result = ask('rick@the-citadel.com', 'can_read_todos', 'todo-3');
    expect(result).toMatchObject({ decision: true, reason: { role: 'viewer', assignedRole: 'admin' } });
  });

  it('derives roles from groups', () => {
    expect(ask('morty@the-citadel.com', 'can_create_todo', 'todo-2')).toMatchObject({
      decision: true,
      reason: { role: 'editor', via: { type: 'group', id: ids.editors } },
    });
  });

  it('holds an ownership condition: an editor updates only the todos it owns', () => {
    expect(ask('morty@the-citadel.com', 'can_update_todo', 'todo-1')).toMatchObject({
      decision: true,
      reason: { conditions: ['resource.properties.ownerID == subject.properties.email'] },
    });
    expect(ask('morty@the-citadel.com', 'can_update_todo', 'todo-2')).toEqual({
      decision: false,
      reason: {
        permitted: false,
        code: 'condition_not_met',
        message: 'user "morty@the-citadel.com" holds todo:can_update_todo only under conditions that did not hold.',
        failedConditions: [{ condition: 'resource.properties.ownerID == subject.properties.email', role: 'editor', assignmentId: 'a-editors' }],
      },
    });
  });

  it('never lets request properties override stored attributes, but lets them fill in what is not stored', () => {
    const claimsOwnership = { resource: { type: 'todo', id: 'todo-2', properties: { ownerID: 'morty@the-citadel.com' } } };
    expect(ask('morty@the-citadel.com', 'can_update_todo', 'todo-2', claimsOwnership).decision).toBe(false);
    expect(
      ask('morty@the-citadel.com', 'can_update_todo', 'todo-2', {
        subject: { type: 'user', id: 'morty@the-citadel.com', properties: { email: 'rick@the-citadel.com' } },
      }).decision,
    ).toBe(false);
  });

  it('limits a grant to listed instances', () => {
    expect(ask('summer@the-smiths.com', 'can_read_todos', 'todo-3').decision).toBe(true);
    expect(ask('summer@the-smiths.com', 'can_read_todos', 'todo-1')).toMatchObject({ decision: false, reason: { code: 'no_permission' } });
  });

  it('evaluates conditions over subject attributes, request context and action properties', () => {
    const conditioned = compileModel(
      'env',
      todoModel({
        assignments: [
          {
            id: 'a-day',
            roleId: ids.admin,
            userId: ids.summer,
            groupId: null,
            resources: null,
            condition: 'subject.properties.level >= 3 && context.hour < 18 && !(has(action.properties.soft) && action.properties.soft == false)',
          },
        ],
      }),
    );
    const at = (hour: number, soft?: boolean) =>
      evaluate(conditioned, {
        subject: { type: 'user', id: ids.summer },
        action: { name: 'can_delete_todo', ...(soft === undefined ? {} : { properties: { soft } }) },
        resource: { type: 'todo', id: 'todo-1' },
        context: { hour },
      }).decision;
    expect(at(10)).toBe(true);
    expect(at(19)).toBe(false);
    expect(at(10, true)).toBe(true);
    expect(at(10, false)).toBe(false);
  });

  it('denies, saying why, unknown subjects, subject types, resource types, actions and stored instances, and inactive users', () => {
    const code = (r: ReturnType<typeof ask>) => (r.reason.permitted ? 'permitted' : r.reason.code);
    expect(code(ask('nobody', 'can_read_todos', 'todo-1'))).toBe('unknown_subject');
    expect(
      code(evaluate(model, { subject: { type: 'robot', id: ids.rick }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } })),
    ).toBe('unknown_subject_type');
    expect(code(ask(ids.rick, 'can_read_todos', 'todo-1', {}, 'car'))).toBe('unknown_resource_type');
    expect(code(ask(ids.rick, 'can_fly', 'todo-1'))).toBe('unknown_action');
    expect(code(ask(ids.rick, 'can_read_todos', 'todo-404'))).toBe('unknown_resource');
    expect(code(ask('jerry@the-smiths.com', 'can_read_todos', 'todo-1'))).toBe('inactive_subject');
  });

  it('decides on request properties for an unknown id when the type does not require stored instances', () => {
    const model2 = compileModel(
      'env',
      todoModel({ assignments: [{ id: 'a', roleId: ids.auditor, userId: ids.summer, groupId: null, resources: null, condition: null }] }),
    );
    expect(evaluate(model2, { subject: { type: 'user', id: ids.summer }, action: { name: 'read' }, resource: { type: 'doc', id: 'anything' } }).decision).toBe(
      true,
    );
  });

  it('treats a condition that fails to evaluate (a missing key) as not holding, with the error in the explanation', () => {
    const model2 = compileModel(
      'env',
      todoModel({
        assignments: [{ id: 'a', roleId: ids.viewer, userId: ids.summer, groupId: null, resources: null, condition: 'resource.properties.missing == 1' }],
      }),
    );
    const result = evaluate(model2, {
      subject: { type: 'user', id: ids.summer },
      action: { name: 'can_read_todos' },
      resource: { type: 'todo', id: 'todo-1' },
    });
    expect(result).toMatchObject({ decision: false, reason: { code: 'condition_not_met', failedConditions: [{ error: expect.stringContaining('missing') }] } });
  });

  it('answers for groups as subjects', () => {
    const r = evaluate(model, { subject: { type: 'group', id: 'editors' }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } });
    expect(r.decision).toBe(true);
  });
});
