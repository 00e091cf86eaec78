// The HR records of employees (directory users). Lists take extra conditions as SQL fragments over `u` (users) and
// `e` (hris_employees): the HRIS surface translates its filters into them (FILTERABLE_EMPLOYEE_COLUMNS).
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { Employee, type EmployeeFields } from './rows.ts';

export const employeeColumns = sql.fragment`
  e.user_id AS "userId", e.environment_id AS "environmentId", e.employee_number AS "employeeNumber",
  e.employment_type AS "employmentType", e.employment_status AS "employmentStatus",
  to_char(e.start_date, 'YYYY-MM-DD') AS "startDate", to_char(e.termination_date, 'YYYY-MM-DD') AS "terminationDate",
  e.department_id AS "departmentId", e.manager_id AS "managerId", e.cost_center AS "costCenter", e.division,
  e.organization, e.work_location AS "workLocation", e.custom_fields AS "customFields", e.version,
  e.created_at AS "createdAt", e.updated_at AS "updatedAt"`;

/** What a filter may compare, by the HRIS attribute path, as SQL over `u` and `e`. */
export const FILTERABLE_EMPLOYEE_COLUMNS: Record<string, FragmentSqlToken> = {
  id: sql.fragment`u.id`,
  externalId: sql.fragment`u.external_id`,
  userName: sql.fragment`u.user_name`,
  displayName: sql.fragment`u.display_name`,
  active: sql.fragment`u.active`,
  employeeNumber: sql.fragment`e.employee_number`,
  employmentType: sql.fragment`e.employment_type`,
  employmentStatus: sql.fragment`e.employment_status`,
  startDate: sql.fragment`e.start_date`,
  terminationDate: sql.fragment`e.termination_date`,
  'department.value': sql.fragment`e.department_id`,
  'manager.value': sql.fragment`e.manager_id`,
  costCenter: sql.fragment`e.cost_center`,
  division: sql.fragment`e.division`,
  organization: sql.fragment`e.organization`,
  'meta.created': sql.fragment`e.created_at`,
  'meta.lastModified': sql.fragment`greatest(e.updated_at, u.updated_at)`,
};

const values = (f: EmployeeFields) => [
  f.employeeNumber,
  f.employmentType,
  f.employmentStatus,
  f.startDate,
  f.terminationDate,
  f.departmentId,
  f.managerId,
  f.costCenter,
  f.division,
  f.organization,
  f.workLocation === null ? null : sql.jsonb(f.workLocation as never),
  sql.jsonb(f.customFields as never),
];

const Count = z.object({ n: z.number() });

/** Queries of one environment's records: every statement is bound to `environmentId`. */
export function createEmployeeQueries(db: CommonQueryMethods, environmentId: string) {
  const find = (userId: string, lock: 'update' | null = null) =>
    db.maybeOne(sql.type(Employee)`
      SELECT ${employeeColumns} FROM hris_employees e WHERE e.environment_id = ${environmentId} AND e.user_id = ${userId}
      ${lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`);
  return {
    findEmployee: find,

    /** The employees of the environment matching every condition of `where` (over `u` and `e`), oldest first. */
    findEmployees: (where: FragmentSqlToken[], page: PageRequest) =>
      selectPage(
        db,
        Employee,
        sql.fragment`SELECT ${employeeColumns} FROM hris_employees e JOIN users u ON u.id = e.user_id
          WHERE ${sql.join([sql.fragment`e.environment_id = ${environmentId}`, ...where], sql.fragment` AND `)}`,
        sql.fragment`e.created_at, e.user_id`,
        page,
      ),

    insertEmployee: async (userId: string, fields: EmployeeFields) => {
      await db.query(sql.unsafe`
        INSERT INTO hris_employees (user_id, environment_id, employee_number, employment_type, employment_status, start_date,
          termination_date, department_id, manager_id, cost_center, division, organization, work_location, custom_fields)
        VALUES (${userId}, ${environmentId}, ${sql.join(values(fields), sql.fragment`, `)})`);
      return (await find(userId))!;
    },

    updateEmployee: async (userId: string, fields: EmployeeFields) => {
      await db.query(sql.unsafe`
        UPDATE hris_employees SET (employee_number, employment_type, employment_status, start_date, termination_date, department_id,
          manager_id, cost_center, division, organization, work_location, custom_fields)
          = (${sql.join(values(fields), sql.fragment`, `)}), version = version + 1, updated_at = now()
        WHERE environment_id = ${environmentId} AND user_id = ${userId}`);
      return (await find(userId))!;
    },

    /** The employees whose department is `departmentId`. */
    countInDepartment: (departmentId: string) =>
      db.oneFirst(sql.type(Count)`
        SELECT count(*)::int AS n FROM hris_employees WHERE environment_id = ${environmentId} AND department_id = ${departmentId}`),
  };
}
