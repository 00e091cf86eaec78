// Events of the HR records of a directory (employees, departments), assembled into db/event-catalog.ts. Changes of
// the directory user or group behind a record emit the directory's own events too.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { Department, Employee } from './rows.ts';

const employee = z.looseObject({ employee: Employee });
const department = z.looseObject({ department: Department });

export const HRIS_EVENTS = {
  'hris.employee.created': { description: 'An employee (a directory user with HR fields) was created.', data: employee },
  'hris.employee.updated': { description: 'The HR fields of an employee changed; `employee` is its new state.', data: employee },
  'hris.employee.started': { description: 'A prehire reached its start date: the employee is active and so is its user.', data: employee },
  'hris.employee.terminated': {
    description: 'An employee was terminated (at once, or on its termination date): its user is deactivated and deprovisioned.',
    data: employee,
  },
  'hris.employee.rehired': { description: 'A terminated employee was hired again under the same externalId.', data: employee },
  'hris.employee.deleted': { description: 'An employee was deleted with its directory user; `employee` is its last state.', data: employee },
  'hris.department.created': { description: 'A department (a directory group with HR fields) was created.', data: department },
  'hris.department.updated': { description: 'A department changed; `department` is its new state.', data: department },
  'hris.department.deleted': { description: 'A department was deleted with its directory group; `department` is its last state.', data: department },
} as const satisfies Record<string, EventTypeEntry>;
