// An environment's branding on its sign-in pages: a name, a logo (https, allowed by its exact URL in the CSP) and two
// colours, given to the stylesheet as CSS custom properties. Text on a colour is white when that passes WCAG AA
// (contrast 4.5:1), else dark.
import { html } from './html.ts';

export interface Branding {
  displayName?: string | null | undefined;
  logoUrl?: string | null | undefined;
  primaryColor?: string | null | undefined;
  backgroundColor?: string | null | undefined;
}

const HEX = /^#[0-9a-f]{6}$/i;
export const DEFAULTS = { primary: '#2251c5', background: '#f4f5f7', dark: '#1d2330', light: '#ffffff' };

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
/** WCAG 2 relative luminance of `#rrggbb`. */
export const luminance = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => channel(parseInt(hex.slice(i, i + 2), 16)));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};
/** WCAG 2 contrast ratio of two `#rrggbb` colours. */
export const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};
/** The text colour for `background`: white when it passes AA (4.5:1), else the dark text colour. */
export const textOn = (background: string) => (contrast(background, DEFAULTS.light) >= 4.5 ? DEFAULTS.light : DEFAULTS.dark);

export function brandStyle(branding: Branding) {
  const primary = branding.primaryColor && HEX.test(branding.primaryColor) ? branding.primaryColor : DEFAULTS.primary;
  const background = branding.backgroundColor && HEX.test(branding.backgroundColor) ? branding.backgroundColor : DEFAULTS.background;
  return html`:root { --primary: ${primary}; --on-primary: ${textOn(primary)}; --background: ${background}; --on-background: ${textOn(background)}; }`;
}
