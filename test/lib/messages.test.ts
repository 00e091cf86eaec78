// The default sender: a log line without the message's text (at info), the text at debug only, and the bounded
// in-process inbox whose waiters wake on arrival.
import { describe, expect, it } from 'vitest';
import { createInbox } from '../../lib/messages/inbox.ts';
import { createLogSender } from '../../lib/messages/log-sender.ts';
import type { Message } from '../../lib/messages/sender.ts';

const message = (to: string, text = 'Your code is 123456.'): Message => ({
  to,
  subject: 'Your verification code',
  text,
  environmentId: '00000000-0000-4000-8000-000000000000',
  kind: 'sign_up_code',
});

describe('the log sender', () => {
  it('logs who and what kind at info, the text (a code, a link) at debug only, and keeps the message in the inbox', async () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    const log = {
      info: (fields: object, m: string) => lines.push({ level: 'info', fields, message: m }),
      debug: (fields: object, m: string) => lines.push({ level: 'debug', fields, message: m }),
    };
    const inbox = createInbox();
    await createLogSender({ log, inbox }).send(message('ada@example.com'));
    expect(lines.filter((l) => l.level === 'info')).toEqual([
      {
        level: 'info',
        fields: { to: 'ada@example.com', kind: 'sign_up_code', environmentId: '00000000-0000-4000-8000-000000000000', subject: 'Your verification code' },
        message: expect.any(String),
      },
    ]);
    expect(JSON.stringify(lines.filter((l) => l.level === 'info'))).not.toContain('123456');
    expect(lines.find((l) => l.level === 'debug')?.fields).toMatchObject({ text: 'Your code is 123456.' });
    expect(inbox.messages).toEqual([{ ...message('ada@example.com'), sentAt: expect.any(Date) }]);
  });
});

describe('the inbox', () => {
  it('keeps the last messages only, and wakes a waiter when a matching message arrives', async () => {
    const inbox = createInbox(3);
    for (const n of [1, 2, 3, 4]) inbox.add(message(`u${n}@example.com`));
    expect(inbox.messages.map((m) => m.to)).toEqual(['u2@example.com', 'u3@example.com', 'u4@example.com']);
    expect((await inbox.waitFor((m) => m.to === 'u3@example.com')).to).toBe('u3@example.com');
    const waiting = inbox.waitFor((m) => m.to === 'late@example.com');
    inbox.add(message('late@example.com', 'late'));
    expect((await waiting).text).toBe('late');
    await expect(inbox.waitFor((m) => m.to === 'never@example.com', 20)).rejects.toThrow(/no message in the inbox/);
  });
});
