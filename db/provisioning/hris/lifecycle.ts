// The HR lifecycle of an employee: its effective status on a day from what the HR system sends, and the changes of
// its user's `active` that must wait for a date (applied by the directory-sync process). Dates are UTC days.
import type { EmploymentStatus } from './rows.ts';

export interface Employment {
  status: EmploymentStatus;
  terminationDate: string | null;
  /** The user is active: ACTIVE or LEAVE. */
  active: boolean;
  /** Dates on which the user's `active` changes (a prehire's start, a future termination). */
  activateOn: string | null;
  deactivateOn: string | null;
}

/** The UTC day of `at`, YYYY-MM-DD. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** The instant a change dated `day` takes effect: the start of that UTC day. */
export const startOfDay = (day: string) => `${day}T00:00:00.000Z`;

/**
 * What an employee is on `today`, given the status its HR system sends (`requested`), the status it had
 * (`previous`) and its dates: a termination dated in the future leaves it as it was until that day; one without a
 * date is effective today; a start date in the future makes it a prehire (inactive) until that day.
 */
export function effectiveEmployment(
  requested: EmploymentStatus | undefined,
  previous: EmploymentStatus | null,
  dates: { startDate: string | null; terminationDate: string | null },
  today: string,
): Employment {
  let { terminationDate } = dates;
  let status: EmploymentStatus = requested ?? (previous === 'TERMINATED' ? 'ACTIVE' : (previous ?? 'ACTIVE'));
  if (status === 'TERMINATED' && terminationDate === null) terminationDate = today;
  if (terminationDate !== null && terminationDate <= today) status = 'TERMINATED';
  else if (status === 'TERMINATED') status = previous === 'LEAVE' || previous === 'PREHIRE' ? previous : 'ACTIVE';
  if (status !== 'TERMINATED' && dates.startDate !== null && dates.startDate > today) status = 'PREHIRE';
  else if (status === 'PREHIRE') status = 'ACTIVE';
  return {
    status,
    terminationDate,
    active: status === 'ACTIVE' || status === 'LEAVE',
    activateOn: status === 'PREHIRE' ? dates.startDate : null,
    deactivateOn: status !== 'TERMINATED' && terminationDate !== null ? terminationDate : null,
  };
}
