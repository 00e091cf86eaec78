// SMTP through nodemailer: implicit TLS (`secure`) or STARTTLS (required unless `requireTls` is false), AUTH with the
// sealed username and password. The host is resolved and checked by the SSRF guard, and nodemailer connects to that
// checked address (TLS still verifies the configured name), so a rebinding answer cannot slip in.
import type * as Nodemailer from 'nodemailer';
import { checkOutboundUrl, OutboundUrlError } from '../../outbound/ssrf-guard.ts';
import type { EmailConfig, EmailSecrets } from '../kinds.ts';
import { EmailSendError, type EmailSender, type OutboundPolicy } from './types.ts';

// nodemailer is loaded on the first SMTP send and kept afterwards (most deployments never use SMTP).
let loaded: Promise<typeof Nodemailer> | undefined;

async function checkedAddress(host: string, port: number, policy: OutboundPolicy) {
  try {
    const { addresses } = await checkOutboundUrl(`http://${host}:${port}/`, { allowPrivate: policy.allowPrivate, lookup: policy.lookup });
    return addresses[0]!;
  } catch (error) {
    if (error instanceof OutboundUrlError) throw new EmailSendError(`could not reach ${host}: ${error.message.replace(/^url/, 'host')}`);
    throw error;
  }
}

export function smtpSender(config: EmailConfig<'smtp'>, secrets: EmailSecrets<'smtp'>, policy: OutboundPolicy): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      const address = await checkedAddress(config.host, config.port, policy);
      const nodemailer = (await (loaded ??= import('nodemailer'))).default;
      const transport = nodemailer.createTransport({
        host: address,
        port: config.port,
        secure: config.secure,
        requireTLS: !config.secure && config.requireTls,
        auth: { user: secrets.username, pass: secrets.password },
        tls: { servername: config.host },
        ...(config.dkim && secrets.dkimPrivateKey ? { dkim: { ...config.dkim, privateKey: secrets.dkimPrivateKey } } : {}),
        connectionTimeout: policy.timeoutMs,
        greetingTimeout: policy.timeoutMs,
        socketTimeout: policy.timeoutMs,
      });
      try {
        const info = await transport.sendMail({ from: config.from, to, subject, text, html, ...(config.replyTo ? { replyTo: config.replyTo } : {}) });
        return { messageId: info.messageId };
      } catch (error) {
        const e = error as { message?: string; responseCode?: number };
        throw new EmailSendError((e.message ?? 'SMTP error').replaceAll(secrets.password, '…').slice(0, 500), e.responseCode ?? null);
      } finally {
        transport.close();
      }
    },
  };
}
