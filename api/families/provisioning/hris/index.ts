import { defineFamily } from '../../family.ts';
import { mountScim } from '../scim/mount.ts';
import { departmentDescriptor } from './departments.ts';
import { employeeDescriptor } from './employees.ts';

export default defineFamily({
  name: 'provisioning/hris',
  register: (app, { pool }) =>
    mountScim(app, {
      prefix: '/v1/hris/v1',
      kind: 'hris',
      tag: 'HRIS',
      operationPrefix: 'hris',
      sort: false,
      descriptors: [employeeDescriptor(pool), departmentDescriptor(pool)],
    }),
});
