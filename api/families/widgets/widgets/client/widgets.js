// The embeddable widgets: framework-free web components (open shadow roots) over IamWidget (./widget-base.js).
// Each takes `token` (a widget token of its kind) and `base-url` (the service; the origin of the script when absent)
// and calls the widget API (/v1/widgets/…) with the token.
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
