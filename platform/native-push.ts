/** Array.prototype.push as the engine gives it, captured before anything can replace it (platform/pdf.ts). */
export const nativePush = Array.prototype.push;
