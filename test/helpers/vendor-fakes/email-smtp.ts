// A real local SMTP server (smtp-server) that requires AUTH, parses what it receives with mailparser, and refuses a
// recipient of `refused.example` with 550, as a mail server refuses an unknown mailbox.
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The AUTH method and user the client authenticated with. */
  auth: { method: string; username: string };
  envelope: { from: string; to: string[] };
  mail: ParsedMail;
}

export interface SmtpFake {
  host: string;
  port: number;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpFake(credentials: { username: string; password: string }): Promise<SmtpFake> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    // Plain text on loopback: no certificate to manage; STARTTLS is not offered.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.username && auth.password === credentials.password)
        callback(null, { user: { method: auth.method, username: auth.username } });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) callback(Object.assign(new Error('5.1.1 Mailbox does not exist'), { responseCode: 550 }));
      else callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push({
            auth: session.user as ReceivedMail['auth'],
            envelope: {
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
            },
            mail,
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: '127.0.0.1',
    port: (server.server.address() as AddressInfo).port,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
