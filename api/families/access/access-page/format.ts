// How the page words durations, times and states.
import { html } from '../../../oidc/pages/html.ts';
import { UNITS, type Unit } from './service.ts';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `1 hour 30 minutes`, `45 seconds`. */
export function durationText(seconds: number) {
  const parts: string[] = [];
  let rest = seconds;
  for (const [word, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
    ['second', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(plural(Math.floor(rest / size), word));
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(' ') || '0 seconds';
}

/** The largest unit that expresses `seconds` exactly, for the duration field's initial value. */
export function durationField(seconds: number): { amount: number; unit: Unit } {
  for (const unit of ['days', 'hours', 'minutes'] as const) if (seconds % UNITS[unit] === 0) return { amount: seconds / UNITS[unit], unit };
  return { amount: seconds, unit: 'seconds' };
}

/** A timestamp as `<time>`, in UTC (`2025-01-31 14:05:09 UTC`). */
export const timeOf = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;

export const REQUEST_STATES: Record<string, string> = {
  pending: 'Waiting for approval',
  approved: 'Approved',
  denied: 'Denied',
  cancelled: 'Cancelled',
  expired: 'Expired without a decision',
};

export const GRANT_STATES: Record<string, string> = {
  approved: 'Approved: activate it to use it',
  active: 'Active',
  expired: 'Ended',
  revoked: 'Ended early',
};
