// The one stylesheet of the sign-in pages, inlined under the page's CSP nonce; the environment's colours come in as
// custom properties (branding.ts).
import { html } from './html.ts';

export const STYLE = html`
  body { font-family: system-ui, sans-serif; background: var(--background); color: #1d2330; margin: 0; } main { max-width: 24rem; margin: 4rem auto; background:
  #fff; padding: 2rem; border-radius: 0.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); } h1 { font-size: 1.4rem; margin-top: 0; } label { display: block; margin:
  1rem 0 0.25rem; font-weight: 600; } label.check { font-weight: 400; } input[type=text], input[type=password], input[type=email] { width: 100%; box-sizing:
  border-box; padding: 0.5rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 0.25rem; } button { margin-top: 1.25rem; padding: 0.6rem 1.2rem;
  font-size: 1rem; cursor: pointer; border-radius: 0.25rem; border: 1px solid #6b7280; background: #fff; color: #1d2330; } button.primary { background:
  var(--primary); color: var(--on-primary); border-color: var(--primary); } :focus-visible { outline: 3px solid #1d2330; outline-offset: 2px; } a { color:
  #1d4ed8; } .error { color: #a31515; background: #fdecec; padding: 0.5rem; border-radius: 0.25rem; } .client { display: flex; align-items: center; gap:
  0.75rem; } .client img { width: 48px; height: 48px; object-fit: contain; } .brand { margin-bottom: 1rem; font-weight: 600; } .brand img { max-height: 48px;
  max-width: 100%; } .links a { margin-right: 1rem; } .actions { display: flex; gap: 0.75rem; flex-wrap: wrap; } input[type=number], input[type=date],
  input[type=tel], select { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 0.25rem; } fieldset
  { border: 0; padding: 0; margin: 1rem 0 0; } legend { font-weight: 600; } .notice { color: #7a4d00; background: #fff4d6; padding: 0.5rem; border-radius:
  0.25rem; }
`;
