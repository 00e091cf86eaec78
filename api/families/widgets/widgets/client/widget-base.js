// The base of the embeddable widgets (served before ./widgets.js, both inside one function scope by
// ../script-routes.ts): the shared style, a DOM helper and IamWidget, which holds the token, calls the widget API and
// announces outcomes in a live region. Data is only ever set as text, never as markup.
/* eslint-disable @typescript-eslint/no-unused-vars -- IamWidget, h and when are used by ./widgets.js, served in the same scope */
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
