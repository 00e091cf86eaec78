// The page's one script, served at `{issuer}/access/assets/access.<hash>.js` (the hash of its text: a new text gets a
// new URL): it follows the state live. Every `data-poll-ms` it asks `data-state` for the version of what the page
// shows; when that changed (a decision, an activation, an expiry), it reloads the page, unless the user is typing in
// a form, in which case it says so and offers a reload button instead. Without it the page still works (reload by hand).
import { createHash } from 'node:crypto';

export const ACCESS_SCRIPT = `(() => {
  'use strict';
  const live = document.querySelector('[data-state]');
  if (!live) return;
  // Reloaded without the query: the notice of the last action (?done=…) is not news any more.
  const reload = () => location.assign(location.pathname);
  const busy = () => [...document.querySelectorAll('form textarea, form input[type=text], form input[type=number]')].some((f) => f.value !== f.defaultValue);
  const tick = async () => {
    try {
      const res = await fetch(live.dataset.state, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (res.status === 401) return reload();
      const body = await res.json();
      if (body.version !== live.dataset.version) {
        if (!busy()) return reload();
        live.textContent = 'Something changed since this page was shown. ';
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Show the changes';
        button.addEventListener('click', reload);
        live.append(button);
        return;
      }
    } catch {}
    setTimeout(tick, Number(live.dataset.pollMs));
  };
  setTimeout(tick, Number(live.dataset.pollMs));
})();
`;

export const ACCESS_SCRIPT_NAME = `access.${createHash('sha256').update(ACCESS_SCRIPT).digest('base64url').slice(0, 16)}.js`;
