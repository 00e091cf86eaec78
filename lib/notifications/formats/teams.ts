import type { ChannelSecrets } from '../channel-kinds.ts';
import { type ChannelEvent, type ChannelRequest, JSON_HEADERS, eventFacts, humanizeType, summarize } from './summary.ts';

export const ADAPTIVE_CARD_CONTENT_TYPE = 'application/vnd.microsoft.card.adaptive';

export function buildTeamsRequest(secrets: ChannelSecrets<'teams'>, event: ChannelEvent): ChannelRequest {
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body: [
      { type: 'TextBlock', text: humanizeType(event.type), weight: 'Bolder', size: 'Medium', wrap: true },
      { type: 'TextBlock', text: summarize(event), wrap: true },
      { type: 'FactSet', facts: eventFacts(event).map(([title, value]) => ({ title, value })) },
      { type: 'TextBlock', text: `Event ID ${event.id}`, isSubtle: true, size: 'Small', wrap: true },
    ],
  };
  const body = {
    type: 'message',
    attachments: [{ contentType: ADAPTIVE_CARD_CONTENT_TYPE, contentUrl: null, content: card }],
  };
  return { url: secrets.webhookUrl, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
