// The message a test send delivers: plain text and HTML, saying which provider sent it.
const NAMES = { resend: 'Resend', sendgrid: 'SendGrid', ses: 'Amazon SES', postmark: 'Postmark', smtp: 'SMTP' } as const;

export function testMessage(kind: keyof typeof NAMES) {
  const line = `This is a test message sent through your ${NAMES[kind]} email provider. It works.`;
  return {
    subject: `Test message from your ${NAMES[kind]} email provider`,
    text: `${line}\n`,
    html: `<!doctype html><html><body><p>${line}</p></body></html>`,
  };
}
