// Events of widget tokens, assembled into db/event-catalog.ts. The token (a bearer) is never part of them.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { WidgetToken } from './rows.ts';

const token = z.looseObject({ token: WidgetToken });

export const WIDGET_EVENTS = {
  'widget.token.issued': {
    description: 'A widget token was issued for a directory user (kind, scopes, origins, expiry); the token itself is never in the event.',
    data: token,
  },
  'widget.token.revoked': { description: 'A widget token was revoked: the widget API refuses it from its next request.', data: token },
} as const satisfies Record<string, EventTypeEntry>;
