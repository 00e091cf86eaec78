// Amazon SNS Publish as documented: form POST to / with Action=Publish, PhoneNumber, Message, Version=2010-03-31,
// signed with SigV4 for the region and service `sns`. The fake recomputes the signature from the request, and answers
// the XML PublishResponse with a MessageId, or an ErrorResponse.
import { randomUUID } from 'node:crypto';
import aws4 from 'aws4';
import { form, startVendorFake, type VendorRequest } from './sms-server.ts';

const xml = (status: number, body: string) => ({ status, body, contentType: 'text/xml' });
const error = (status: number, code: string, message: string) =>
  xml(
    status,
    `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
  );

export const SIGV4 = /^AWS4-HMAC-SHA256 Credential=(\w+)\/(\d{8})\/([a-z0-9-]+)\/sns\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

function expectedSignature(req: VendorRequest, region: string, credentials: { accessKeyId: string; secretAccessKey: string }) {
  const signed = aws4.sign(
    {
      host: req.headers.host,
      path: req.path,
      method: req.method,
      service: 'sns',
      region,
      body: req.body,
      headers: { 'content-type': req.headers['content-type'], 'x-amz-date': req.headers['x-amz-date'] },
    },
    credentials,
  );
  return /Signature=([0-9a-f]{64})/.exec(String(signed.headers?.Authorization))?.[1];
}

export function startSnsFake(region: string, credentials: { accessKeyId: string; secretAccessKey: string }) {
  return startVendorFake((req) => {
    if (req.method !== 'POST' || req.path !== '/') return error(404, 'NotFound', 'Not found');
    const auth = SIGV4.exec(req.headers.authorization ?? '');
    if (!auth || auth[1] !== credentials.accessKeyId) return error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (auth[3] !== region || auth[5] !== expectedSignature(req, region, credentials)) {
      return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
    }
    const f = form(req);
    if (f.Action !== 'Publish' || f.Version !== '2010-03-31') return error(400, 'InvalidAction', 'The action or operation requested is invalid.');
    if (!f.PhoneNumber || !f.Message) return error(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber or Message');
    if (f.PhoneNumber.startsWith('+1500')) return error(400, 'InvalidParameter', 'Invalid parameter: PhoneNumber Reason: +1500 is not valid to publish to');
    return xml(
      200,
      `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult>` +
        `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    );
  });
}
