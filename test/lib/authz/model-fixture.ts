// A small stored model built in memory: the Todo application of the AuthZEN interop scenarios, trimmed.
import type { StoredModel } from '../../../lib/authz/model.ts';

export const ids = {
  rick: '00000000-0000-4000-8000-000000000001',
  morty: '00000000-0000-4000-8000-000000000002',
  summer: '00000000-0000-4000-8000-000000000003',
  jerry: '00000000-0000-4000-8000-000000000004',
  editors: '00000000-0000-4000-8000-000000000011',
  todo: '00000000-0000-4000-8000-000000000021',
  doc: '00000000-0000-4000-8000-000000000022',
  viewer: '00000000-0000-4000-8000-000000000031',
  editor: '00000000-0000-4000-8000-000000000032',
  admin: '00000000-0000-4000-8000-000000000033',
  auditor: '00000000-0000-4000-8000-000000000034',
};

const user = (id: string, userName: string, extra: Partial<StoredModel['users'][number]> = {}): StoredModel['users'][number] => ({
  id,
  userName,
  externalId: null,
  displayName: null,
  active: true,
  emails: [userName],
  attributes: {},
  groupIds: [],
  ...extra,
});

export function todoModel(overrides: Partial<StoredModel> = {}): StoredModel {
  return {
    users: [
      user(ids.rick, 'rick@the-citadel.com', { externalId: 'CiRmZDA2', attributes: { department: 'science', level: 9 } }),
      user(ids.morty, 'morty@the-citadel.com', { groupIds: [ids.editors], attributes: { department: 'school', level: 2 } }),
      user(ids.summer, 'summer@the-smiths.com', { attributes: { department: 'school', level: 3 } }),
      user(ids.jerry, 'jerry@the-smiths.com', { active: false }),
    ],
    groups: [{ id: ids.editors, name: 'Editors', externalId: null, attributes: {} }],
    resourceTypes: [
      { id: ids.todo, key: 'todo', storedInstancesOnly: true, actions: ['can_read_todos', 'can_update_todo', 'can_delete_todo', 'can_create_todo'] },
      { id: ids.doc, key: 'doc', storedInstancesOnly: false, actions: ['read', 'delete'] },
    ],
    resources: [
      { typeId: ids.todo, id: 'todo-1', attributes: { ownerID: 'morty@the-citadel.com' } },
      { typeId: ids.todo, id: 'todo-2', attributes: { ownerID: 'rick@the-citadel.com' } },
      { typeId: ids.todo, id: 'todo-3', attributes: { ownerID: 'summer@the-smiths.com' } },
    ],
    roles: [
      { id: ids.viewer, key: 'viewer', permissions: [{ typeId: ids.todo, action: 'can_read_todos', condition: null }], inherits: [] },
      {
        id: ids.editor,
        key: 'editor',
        permissions: [
          { typeId: ids.todo, action: 'can_create_todo', condition: null },
          { typeId: ids.todo, action: 'can_update_todo', condition: 'resource.properties.ownerID == subject.properties.email' },
        ],
        inherits: [ids.viewer],
      },
      {
        id: ids.admin,
        key: 'admin',
        permissions: [
          { typeId: ids.todo, action: 'can_update_todo', condition: null },
          { typeId: ids.todo, action: 'can_delete_todo', condition: null },
        ],
        inherits: [ids.editor],
      },
      { id: ids.auditor, key: 'auditor', permissions: [{ typeId: ids.doc, action: 'read', condition: null }], inherits: [] },
    ],
    assignments: [
      { id: 'a-rick-admin', roleId: ids.admin, userId: ids.rick, groupId: null, resources: null, condition: null },
      { id: 'a-editors', roleId: ids.editor, userId: null, groupId: ids.editors, resources: null, condition: null },
      { id: 'a-summer-viewer', roleId: ids.viewer, userId: ids.summer, groupId: null, resources: [{ type: 'todo', id: 'todo-3' }], condition: null },
      { id: 'a-jerry-admin', roleId: ids.admin, userId: ids.jerry, groupId: null, resources: null, condition: null },
    ],
    ...overrides,
  };
}
