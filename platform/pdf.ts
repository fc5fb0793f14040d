import { nativePush } from './native-push.ts';
import { PDFParse } from 'pdf-parse';

// pdf-parse loads pdfjs-dist's legacy build, whose core-js polyfills replace Array.prototype.push
// for the whole process with a JavaScript version (V8's push does not throw on a non-writable
// length, which core-js treats as a bug): every push anywhere then costs a function call and
// argument checks (about 2% of the CPU of a proposal's pipeline in bench:proposals). pdfjs runs
// on the engine's push; put it back. Import PDFParse from here, never from pdf-parse directly.
if (Array.prototype.push !== nativePush) Array.prototype.push = nativePush;

export { PDFParse };
