// The dispatcher routes by typed event names of the catalog, not by string literals inside its SQL.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isKnownEventType } from '../../db/event-catalog.ts';
import { ROUTING } from '../../db/processes/dispatch.ts';

describe('dispatcher routing', () => {
  it('names only event types of the catalog, and its SQL names none itself', () => {
    const named = [...ROUTING.notDispatched, ROUTING.threatAlert, ...ROUTING.elevateRequest, ROUTING.elevateEscalated];
    expect(named.filter((type) => !isKnownEventType(type))).toEqual([]);
    const source = fs.readFileSync(new URL('../../db/processes/dispatch.ts', import.meta.url), 'utf8');
    const statements = source.slice(source.indexOf('export function createDispatchQueries'));
    expect(statements.match(/'[a-z_]+\.[a-z_.]+'/g) ?? []).toEqual([]);
  });
});
