/**
 * HTML written by the console: every interpolated value is escaped unless it is already `Html`
 * (built by this tag or `raw`), so text that came from a caller, a source or a model can never
 * become markup. Arrays interpolate as their items, joined with nothing.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Interpolated = Html | string | number | boolean | null | undefined | readonly Interpolated[];

function render(value: Interpolated): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolated[]): Html {
  let text = strings[0]!;
  values.forEach((value, i) => (text += render(value) + strings[i + 1]!));
  return new Html(text);
}

/** Markup this code wrote itself (an inline SVG, a prebuilt fragment): never caller text. */
export function raw(markup: string): Html {
  return new Html(markup);
}
