import type { ChannelSecrets } from '../channel-kinds.ts';
import { escapeMrkdwn, slackApprovalBlocks } from './slack-approval.ts';
import { type ChannelEvent, type ChannelRequest, JSON_HEADERS, eventFacts, humanizeType, summarize, truncate } from './summary.ts';

// Block Kit limits: header text 150 chars, section text 3000, at most 10 fields of 2000 chars.
export function buildSlackRequest(secrets: ChannelSecrets<'slack'>, event: ChannelEvent): ChannelRequest {
  const summary = escapeMrkdwn(summarize(event));
  const fields = eventFacts(event)
    .slice(0, 10)
    // Values as inline code, so `_` and `*` in ids and types are not read as formatting.
    .map(([label, value]) => ({ type: 'mrkdwn', text: truncate(`*${label}*\n\`${escapeMrkdwn(value.replace(/`/g, "'"))}\``, 2000) }));
  const body = {
    text: truncate(summary, 3000),
    blocks: slackApprovalBlocks(event) ?? [
      { type: 'header', text: { type: 'plain_text', text: truncate(humanizeType(event.type), 150), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: truncate(summary, 3000) }, fields },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Event ID \`${escapeMrkdwn(event.id)}\`` }] },
    ],
  };
  return { url: secrets.webhookUrl, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
