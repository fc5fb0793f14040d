/**
 * Text made safe inside HTML, in an element or a quoted attribute: the five characters that could
 * end either are written as numeric references. The one escape of every page and e-mail.
 */
export const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
