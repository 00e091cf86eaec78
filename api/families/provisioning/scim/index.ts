import { defineFamily } from '../../family.ts';
import { groupDescriptor } from './groups.ts';
import { mountScim } from './mount.ts';
import { userDescriptor } from './users.ts';

export default defineFamily({
  name: 'provisioning/scim',
  register: (app, { pool }) =>
    mountScim(app, { prefix: '/v1/scim/v2', kind: 'scim', tag: 'SCIM', operationPrefix: 'scim', descriptors: [userDescriptor(pool), groupDescriptor(pool)] }),
});
