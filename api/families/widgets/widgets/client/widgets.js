// The embeddable widgets: framework-free web components (open shadow roots), one script, no outside resource.
// Each takes `token` (a widget token of its kind) and `base-url` (the service; the origin of this script when absent)
// and calls the widget API (/v1/widgets/…) with the token. Data is only ever set as text, never as markup.
(() => {
  const SCRIPT_ORIGIN = document.currentScript ? new URL(document.currentScript.src).origin : location.origin;

  const STYLE = `
    :host { display: block; font: 14px/1.5 system-ui, sans-serif; color: #1a1a1a; }
    section { border: 1px solid #c8c8c8; border-radius: 8px; padding: 12px 16px; margin: 0 0 12px; }
    h2 { font-size: 1.1em; margin: 0 0 8px; } h3 { font-size: 1em; margin: 12px 0 4px; }
    ul { list-style: none; padding: 0; margin: 0; } li { display: flex; gap: 8px; align-items: center; justify-content: space-between; padding: 4px 0; border-top: 1px solid #eee; }
    label { display: block; margin: 6px 0 2px; font-weight: 600; }
    input, select { font: inherit; padding: 4px 6px; border: 1px solid #767676; border-radius: 4px; }
    button { font: inherit; padding: 4px 10px; border-radius: 4px; border: 1px solid #1d4ed8; background: #1d4ed8; color: #fff; cursor: pointer; }
    button.secondary { background: #fff; color: #1d4ed8; }
    table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 6px; border-top: 1px solid #eee; }
    caption { text-align: left; font-weight: 600; }
    .status { min-height: 1.5em; margin: 8px 0 0; } .error { color: #b00020; } code { word-break: break-all; }
  `;

  /** An element with attributes and children (strings become text nodes). */
  const h = (tag, attributes = {}, ...children) => {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
      else if (value !== false && value !== undefined && value !== null) element.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) if (child !== null && child !== undefined) element.append(child);
    return element;
  };
  const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
  let ids = 0;

  class IamWidget extends HTMLElement {
    static observedAttributes = ['token', 'base-url'];

    connectedCallback() {
      if (!this.shadowRoot) this.attachShadow({ mode: 'open' });
      this.render();
    }

    attributeChangedCallback() {
      if (this.shadowRoot) this.render();
    }

    get baseUrl() {
      return (this.getAttribute('base-url') || SCRIPT_ORIGIN).replace(/\/$/, '');
    }

    async api(method, path, body) {
      const response = await fetch(`${this.baseUrl}/v1/widgets${path}`, {
        method,
        headers: { authorization: `Bearer ${this.getAttribute('token') || ''}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (response.status === 204) return null;
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.error || `The service answered ${response.status}.`);
      return data;
    }

    /** Says `message` in the widget's live region (screen readers announce it). */
    announce(message, error = false) {
      this.status.textContent = message;
      this.status.classList.toggle('error', error);
    }

    /** Runs `work`, announcing `done` or the error. */
    async act(work, done) {
      try {
        await work();
        if (done) this.announce(done);
      } catch (error) {
        this.announce(error.message, true);
      }
    }

    render() {
      const headingId = `iam-widget-${++ids}`;
      this.status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
      this.body = h('div');
      const section = h('section', { 'aria-labelledby': headingId }, h('h2', { id: headingId }, this.heading), this.body, this.status);
      this.shadowRoot.replaceChildren(h('style', {}, STYLE), section);
      if (!this.getAttribute('token')) return this.announce('No widget token was given.', true);
      void this.act(() => this.load());
    }

    /** A list of `items`, each shown by `line` with an action button (or none). */
    list(label, items, line, empty) {
      if (items.length === 0) return h('p', {}, empty);
      return h('ul', { 'aria-label': label }, items.map(line));
    }
  }

  class UserProfile extends IamWidget {
    heading = 'Profile';
    async load() {
      const { user } = await this.api('GET', '/profile');
      const fields = [
        ['displayName', 'Display name'],
        ['nickName', 'Nickname'],
        ['title', 'Job title'],
        ['locale', 'Locale'],
        ['timezone', 'Time zone'],
      ];
      const inputs = fields.map(([name, text]) => {
        const id = `${name}-${ids}`;
        return [name, h('label', { for: id }, text), h('input', { id, name, value: user[name] ?? '' })];
      });
      const form = h(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            const body = Object.fromEntries(inputs.map(([name, , input]) => [name, input.value.trim() || null]));
            void this.act(() => this.api('PATCH', '/profile', body), 'Profile saved.');
          },
        },
        inputs.map(([, label, input]) => [label, input]),
        h('p', {}, h('button', { type: 'submit' }, 'Save profile')),
      );
      this.body.replaceChildren(h('p', {}, `Signed in as ${user.userName}`), form);
    }
  }

  class UserSecurity extends IamWidget {
    heading = 'Security';
    async load() {
      const parts = await Promise.allSettled([this.api('GET', '/sessions'), this.api('GET', '/passkeys'), this.api('GET', '/mfa-factors')]);
      const [sessions, passkeys, factors] = parts.map((p) => (p.status === 'fulfilled' ? p.value : null));
      const remove = (label, method, path, done) =>
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            'aria-label': label,
            onclick: () =>
              void this.act(async () => {
                await this.api(method, path);
                await this.load();
              }, done),
          },
          label.split(':')[0],
        );
      this.body.replaceChildren(
        h('h3', {}, 'Sessions'),
        sessions
          ? this.list(
              'Sessions',
              sessions.sessions.filter((s) => s.active),
              (s) => {
                const text = `Signed in ${when(s.createdAt)} from ${s.ip ?? 'an unknown address'}${s.userAgent ? ` (${s.userAgent})` : ''}`;
                return h('li', {}, h('span', {}, text), remove(`Revoke session: ${text}`, 'DELETE', `/sessions/${s.id}`, 'Session revoked.'));
              },
              'No active session.',
            )
          : h('p', {}, 'Not available.'),
        h('h3', {}, 'Passkeys'),
        passkeys
          ? this.list(
              'Passkeys',
              passkeys.passkeys,
              (p) => h('li', {}, h('span', {}, p.name), remove(`Remove passkey: ${p.name}`, 'DELETE', `/passkeys/${p.id}`, 'Passkey removed.')),
              'No passkey.',
            )
          : h('p', {}, 'Not available.'),
        h('h3', {}, 'Two-step verification'),
        factors
          ? this.list(
              'Second factors',
              factors.factors,
              (f) => {
                const text = f.type === 'totp' ? 'Authenticator app' : `Phone ${f.phoneNumber ?? ''}`;
                return h('li', {}, h('span', {}, text), remove(`Remove: ${text}`, 'DELETE', `/mfa-factors/${f.id}`, 'Factor removed.'));
              },
              'No second factor.',
            )
          : h('p', {}, 'Not available.'),
      );
    }
  }

  class OrganizationMembers extends IamWidget {
    heading = 'Members';
    async load() {
      const [{ members }, { invitations }] = await Promise.all([this.api('GET', '/members'), this.api('GET', '/invitations')]);
      const email = h('input', { id: `email-${++ids}`, type: 'email', name: 'email', required: true, autocomplete: 'off' });
      const role = h(
        'select',
        { id: `role-${ids}`, name: 'role' },
        ['member', 'admin', 'owner'].map((r) => h('option', { value: r }, r)),
      );
      const form = h(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            void this.act(async () => {
              await this.api('POST', '/invitations', { email: email.value.trim(), role: role.value });
              await this.load();
            }, `Invitation sent to ${email.value.trim()}.`);
          },
        },
        h('h3', {}, 'Invite a member'),
        h('label', { for: email.id }, 'Email'),
        email,
        h('label', { for: role.id }, 'Role'),
        role,
        h('p', {}, h('button', { type: 'submit' }, 'Send invitation')),
      );
      const pending = invitations.filter((i) => i.status === 'pending');
      this.body.replaceChildren(
        this.list(
          'Members',
          members,
          (m) => h('li', {}, h('span', {}, `${m.user?.displayName ?? m.user?.emails?.[0] ?? m.userId} (${m.role})`)),
          'No member yet.',
        ),
        h('h3', {}, 'Pending invitations'),
        this.list(
          'Pending invitations',
          pending,
          (i) =>
            h(
              'li',
              {},
              h('span', {}, `${i.email} (${i.role})`),
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Revoke invitation of ${i.email}`,
                  onclick: () =>
                    void this.act(async () => {
                      await this.api('POST', `/invitations/${i.id}/revoke`);
                      await this.load();
                    }, 'Invitation revoked.'),
                },
                'Revoke',
              ),
            ),
          'No pending invitation.',
        ),
        form,
      );
    }
  }

  class ApiKeys extends IamWidget {
    heading = 'API keys';
    async load(created) {
      const { tokens } = await this.api('GET', '/api-keys');
      const name = h('input', { id: `key-name-${++ids}`, name: 'name', required: true, maxlength: 200 });
      const form = h(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            void this.act(async () => {
              const { fullToken } = await this.api('POST', '/api-keys', { name: name.value.trim() });
              await this.load(fullToken);
            }, 'API key created: copy it now, it is shown once.');
          },
        },
        h('label', { for: name.id }, 'Key name'),
        name,
        h('p', {}, h('button', { type: 'submit' }, 'Create API key')),
      );
      this.body.replaceChildren(
        created ? h('p', {}, 'Your new API key (shown once): ', h('code', {}, created)) : '',
        this.list(
          'API keys',
          tokens.filter((t) => t.active),
          (t) =>
            h(
              'li',
              {},
              h('span', {}, `${t.name} (${t.prefix ?? ''}…, created ${when(t.createdAt)})`),
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  'aria-label': `Revoke API key ${t.name}`,
                  onclick: () =>
                    void this.act(async () => {
                      await this.api('POST', `/api-keys/${t.id}/revoke`);
                      await this.load();
                    }, 'API key revoked.'),
                },
                'Revoke',
              ),
            ),
          'No API key.',
        ),
        form,
      );
    }
  }

  class AuditLog extends IamWidget {
    heading = 'Audit log';
    async load(cursor, rows = []) {
      const page = await this.api('GET', `/audit-logs?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const all = [...rows, ...page.auditLogs];
      const table = h(
        'table',
        {},
        h('caption', {}, 'Recent activity, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['When', 'Who', 'What', 'On'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h(
          'tbody',
          {},
          all.map((e) =>
            h(
              'tr',
              {},
              h('td', {}, when(e.occurredAt)),
              h('td', {}, `${e.actor.type} ${e.actor.id ?? ''}`),
              h('td', {}, e.action),
              h('td', {}, `${e.resource.type} ${e.resource.id ?? ''}`),
            ),
          ),
        ),
      );
      const more = page.hasMore
        ? h('p', {}, h('button', { type: 'button', onclick: () => void this.act(() => this.load(page.nextCursor, all)) }, 'Show older entries'))
        : '';
      this.body.replaceChildren(table, more);
    }
  }

  const define = (name, element) => customElements.get(name) || customElements.define(name, element);
  define('iam-user-profile', UserProfile);
  define('iam-user-security', UserSecurity);
  define('iam-organization-members', OrganizationMembers);
  define('iam-api-keys', ApiKeys);
  define('iam-audit-log', AuditLog);
})();
