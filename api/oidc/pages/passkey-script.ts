// The browser script of the passkey pieces of the sign-in pages, served at {issuer}/assets/webauthn.<hash>.js (the
// hash of its text: cached for a year, a new text gets a new URL). It finds each element with `data-passkey`:
//   get:         a "Sign in with a passkey" button: navigator.credentials.get() with the options of `data-options`
//   conditional: the identifier form: the same, with mediation 'conditional' (passkeys offered in the field's autofill)
//   create:      a "Create a passkey" button: navigator.credentials.create()
// It posts `{ csrf }` to `data-options`, runs the ceremony, posts `{ csrf, challengeId, response }` to `data-verify`
// and follows the `location` answered; a refusal's localised `error` (or the element's `data-cancelled` /
// `data-failed` text) goes to its `[data-passkey-error]` alert, which takes the focus. Without this script the page
// shows the element's `[data-nojs]` note and keeps the button hidden.
import { createHash } from 'node:crypto';

export const WEBAUTHN_SCRIPT = `(() => {
  'use strict';
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));
  const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const ids = (list) => (list || []).map((c) => ({ ...c, id: bytes(c.id) }));
  const requestOptions = (o) => ({ ...o, challenge: bytes(o.challenge), allowCredentials: ids(o.allowCredentials) });
  const creationOptions = (o) => ({ ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: ids(o.excludeCredentials) });
  const json = (credential) => {
    if (typeof credential.toJSON === 'function') return credential.toJSON();
    const r = credential.response;
    const response = { clientDataJSON: text(r.clientDataJSON) };
    if (r.attestationObject) Object.assign(response, { attestationObject: text(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] });
    else Object.assign(response, { authenticatorData: text(r.authenticatorData), signature: text(r.signature), ...(r.userHandle ? { userHandle: text(r.userHandle) } : {}) });
    return { id: credential.id, rawId: text(credential.rawId), type: credential.type, response, clientExtensionResults: credential.getClientExtensionResults() };
  };
  const post = async (url, body) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    return { ok: res.ok, body: await res.json().catch(() => ({})) };
  };
  const show = (box, message) => {
    const alert = box.querySelector('[data-passkey-error]');
    alert.textContent = message;
    alert.hidden = false;
    alert.focus();
  };
  async function ceremony(box, kind) {
    const d = box.dataset;
    let credential = null;
    let started;
    try {
      started = await post(d.options, { csrf: d.csrf });
      if (!started.ok) return show(box, started.body.error || d.failed);
      const { options } = started.body;
      credential =
        kind === 'create'
          ? await navigator.credentials.create({ publicKey: creationOptions(options) })
          : await navigator.credentials.get({ publicKey: requestOptions(options), ...(kind === 'conditional' ? { mediation: 'conditional' } : {}) });
    } catch (error) {
      if (kind === 'conditional') return;
      return show(box, error && error.name === 'NotAllowedError' ? d.cancelled : d.failed);
    }
    try {
      const done = await post(d.verify, { csrf: d.csrf, challengeId: started.body.challengeId, response: json(credential) });
      if (done.ok && done.body.location) return window.location.assign(done.body.location);
      show(box, done.body.error || d.failed);
    } catch {
      show(box, d.failed);
    }
  }
  if (!window.PublicKeyCredential) return;
  for (const box of document.querySelectorAll('[data-passkey]')) {
    const kind = box.dataset.passkey;
    for (const note of box.querySelectorAll('[data-nojs]')) note.hidden = true;
    const button = box.querySelector('[data-passkey-start]');
    if (button) {
      button.hidden = false;
      button.addEventListener('click', () => ceremony(box, kind));
    }
    if (kind === 'conditional' && PublicKeyCredential.isConditionalMediationAvailable) {
      PublicKeyCredential.isConditionalMediationAvailable().then((available) => available && ceremony(box, kind), () => {});
    }
  }
})();
`;

const HASH = createHash('sha256').update(WEBAUTHN_SCRIPT).digest('base64url').slice(0, 16);
/** The script's file name under {issuer}/assets/. */
export const WEBAUTHN_FILE = `webauthn.${HASH}.js`;

/** The script's URL for a page of the interaction at `interactionUrl` ({issuer}/interaction/{uid}). */
export const webauthnScriptUrl = (interactionUrl: string) => `${interactionUrl.replace(/\/interaction\/[^/]+$/, '')}/assets/${WEBAUTHN_FILE}`;
