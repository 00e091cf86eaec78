import { describe, expect, it } from 'vitest';
import { compileModel } from '../../../lib/authz/compile.ts';
import { evaluate } from '../../../lib/authz/evaluate.ts';
import { searchActions, searchResources, searchSubjects } from '../../../lib/authz/search.ts';
import type { StoredModel } from '../../../lib/authz/model.ts';
import { ids, todoModel } from './model-fixture.ts';

const model = compileModel('env', todoModel());
const all = { offset: 0, limit: 100 };
const user = (id: string) => ({ type: 'user', id });

describe('search', () => {
  it('finds the resources a subject may act on: all of them for an unconditional role, the owned ones under a condition, the listed ones for a limited grant', () => {
    const ids_ = (subject: string, action: string) =>
      searchResources(model, { subject: user(subject), action: { name: action }, resource: { type: 'todo' } }, all).results.map((r) => r.id);
    expect(ids_('rick@the-citadel.com', 'can_update_todo')).toEqual(['todo-1', 'todo-2', 'todo-3']);
    expect(ids_('morty@the-citadel.com', 'can_update_todo')).toEqual(['todo-1']);
    expect(ids_('summer@the-smiths.com', 'can_read_todos')).toEqual(['todo-3']);
    expect(ids_('jerry@the-smiths.com', 'can_read_todos')).toEqual([]);
    expect(searchResources(model, { subject: user('nobody'), action: { name: 'can_read_todos' }, resource: { type: 'todo' } }, all)).toEqual({
      results: [],
      nextOffset: null,
    });
    expect(searchResources(model, { subject: user(ids.rick), action: { name: 'can_read_todos' }, resource: { type: 'car' } }, all).results).toEqual([]);
  });

  it('looks owned instances up by attribute, and still lets request properties fill in an attribute an instance lacks', () => {
    const m = compileModel('env', todoModel({ resources: [...todoModel().resources, { typeId: ids.todo, id: 'todo-4', attributes: {} }] }));
    const search = (properties?: Record<string, unknown>) =>
      searchResources(m, { subject: user(ids.morty), action: { name: 'can_update_todo' }, resource: { type: 'todo', properties } }, all).results.map(
        (r) => r.id,
      );
    expect(search()).toEqual(['todo-1']);
    expect(search({ ownerID: 'morty@the-citadel.com' })).toEqual(['todo-1', 'todo-4']);
  });

  it('pages by offset to the last page, and every result evaluates to permit', () => {
    const many: StoredModel = todoModel({
      resources: Array.from({ length: 25 }, (_, i) => ({
        typeId: ids.todo,
        id: `t-${String(i).padStart(2, '0')}`,
        attributes: { ownerID: i % 2 ? 'morty@the-citadel.com' : 'x' },
      })),
    });
    const m = compileModel('env', many);
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page = searchResources(m, { subject: user(ids.morty), action: { name: 'can_update_todo' }, resource: { type: 'todo' } }, { offset, limit: 5 });
      seen.push(...page.results.map((r) => r.id));
      offset = page.nextOffset;
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toHaveLength(12);
    for (const id of seen) {
      expect(evaluate(m, { subject: user(ids.morty), action: { name: 'can_update_todo' }, resource: { type: 'todo', id } }).decision).toBe(true);
    }
  });

  it('finds the subjects permitted, transitively through groups, by the id a PEP knows them by', () => {
    const found = searchSubjects(model, { subject: { type: 'user' }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } }, all);
    // rick (externalId), morty through Editors (userName); summer's grant is limited to todo-3; jerry is inactive.
    expect(found.results).toEqual([
      { type: 'user', id: 'CiRmZDA2' },
      { type: 'user', id: 'morty@the-citadel.com' },
    ]);
    const owners = searchSubjects(model, { subject: { type: 'identity' }, action: { name: 'can_update_todo' }, resource: { type: 'todo', id: 'todo-1' } }, all);
    expect(owners.results.map((r) => r.id)).toEqual(['CiRmZDA2', 'morty@the-citadel.com']);
    const groups = searchSubjects(model, { subject: { type: 'group' }, action: { name: 'can_create_todo' }, resource: { type: 'todo', id: 'todo-1' } }, all);
    expect(groups.results).toEqual([{ type: 'group', id: 'Editors' }]);
    expect(
      searchSubjects(model, { subject: { type: 'robot' }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } }, all).results,
    ).toEqual([]);
  });

  it('answers with the identifier of an explicit kind, leaving out the subjects that have none', () => {
    const readers = (subjectIdentifier: 'userName' | 'externalId' | 'id') =>
      searchSubjects(
        compileModel('env', todoModel({ subjectIdentifier })),
        { subject: { type: 'user' }, action: { name: 'can_read_todos' }, resource: { type: 'todo', id: 'todo-1' } },
        all,
      ).results.map((r) => r.id);
    expect(readers('userName')).toEqual(['rick@the-citadel.com', 'morty@the-citadel.com']);
    expect(readers('externalId')).toEqual(['CiRmZDA2']); // morty has no externalId: it cannot be named
    expect(readers('id')).toEqual([ids.rick, ids.morty]);
  });

  it('finds the actions a subject may take on a resource', () => {
    const names = (subject: string, id: string) =>
      searchActions(model, { subject: user(subject), resource: { type: 'todo', id } }, all).results.map((a) => a.name);
    expect(names(ids.rick, 'todo-1')).toEqual(['can_create_todo', 'can_delete_todo', 'can_read_todos', 'can_update_todo']);
    expect(names(ids.morty, 'todo-1')).toEqual(['can_create_todo', 'can_read_todos', 'can_update_todo']);
    expect(names(ids.morty, 'todo-2')).toEqual(['can_create_todo', 'can_read_todos']);
    expect(names(ids.summer, 'todo-1')).toEqual([]);
  });
});
