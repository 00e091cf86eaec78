// The HR lifecycle rule (db/provisioning/hris/lifecycle.ts): an employee's effective status on a day, and the dates
// its user's `active` changes on. Pure: no database.
import { describe, expect, it } from 'vitest';
import { effectiveEmployment } from '../../db/provisioning/hris/lifecycle.ts';

const today = '2026-06-15';
const dates = (startDate: string | null, terminationDate: string | null = null) => ({ startDate, terminationDate });

describe('effective employment', () => {
  it('is ACTIVE by default, and a start date in the future makes a prehire activated that day', () => {
    expect(effectiveEmployment(undefined, null, dates('2026-01-01'), today)).toEqual({
      status: 'ACTIVE',
      terminationDate: null,
      active: true,
      activateOn: null,
      deactivateOn: null,
    });
    expect(effectiveEmployment('ACTIVE', null, dates('2026-07-01'), today)).toMatchObject({ status: 'PREHIRE', active: false, activateOn: '2026-07-01' });
    expect(effectiveEmployment('PREHIRE', null, dates('2026-06-15'), today)).toMatchObject({ status: 'ACTIVE', active: true, activateOn: null });
  });

  it('a termination without a date or dated today or before is effective now; one dated later waits for its day', () => {
    expect(effectiveEmployment('TERMINATED', 'ACTIVE', dates(null), today)).toMatchObject({ status: 'TERMINATED', terminationDate: today, active: false });
    expect(effectiveEmployment('ACTIVE', 'ACTIVE', dates(null, '2026-06-01'), today)).toMatchObject({
      status: 'TERMINATED',
      active: false,
      deactivateOn: null,
    });
    expect(effectiveEmployment('TERMINATED', 'LEAVE', dates(null, '2026-07-31'), today)).toEqual({
      status: 'LEAVE',
      terminationDate: '2026-07-31',
      active: true,
      activateOn: null,
      deactivateOn: '2026-07-31',
    });
  });

  it('a fixed-term prehire is activated on its start and deactivated on its end', () => {
    expect(effectiveEmployment(undefined, null, dates('2026-07-01', '2026-12-31'), today)).toMatchObject({
      status: 'PREHIRE',
      activateOn: '2026-07-01',
      deactivateOn: '2026-12-31',
    });
  });

  it('LEAVE is active; a rehire (the date of the termination cleared) is active again', () => {
    expect(effectiveEmployment('LEAVE', 'ACTIVE', dates(null), today)).toMatchObject({ status: 'LEAVE', active: true });
    expect(effectiveEmployment('ACTIVE', 'TERMINATED', dates('2026-06-15'), today)).toMatchObject({ status: 'ACTIVE', active: true });
    expect(effectiveEmployment(undefined, 'TERMINATED', dates(null), today)).toMatchObject({ status: 'ACTIVE', active: true });
  });
});
