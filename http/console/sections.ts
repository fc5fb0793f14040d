import type { ConsoleSection } from './section.ts';

/** The console's sections in navigation order; each capability adds one line. */
export const consoleSections: ConsoleSection[] = [
];
