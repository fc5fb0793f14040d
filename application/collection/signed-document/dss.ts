import { PDFDocument, PDFName, PDFRef } from 'pdf-lib';
import type { ValidationData } from '../../../platform/timestamp/revocation.ts';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/**
 * Appends the Document Security Store (ISO 32000-2 12.8.4.3, ETSI EN 319 142-1 5.4: PAdES B-LT)
 * to a signed PDF as an incremental update: the signed bytes stay as they are (the signature's
 * byte range still covers them), and after them come one stream per certificate, OCSP response
 * and CRL, the /DSS dictionary naming them, the catalog again with /DSS, and an xref section
 * chained to the previous one by /Prev. No VRI: validators use the DSS as a whole.
 */
export async function appendDss(signed: Buffer, data: ValidationData): Promise<Buffer> {
  const doc = await PDFDocument.load(signed, { updateMetadata: false });
  const { Root: root, Info: info, ID: id } = doc.context.trailerInfo;
  if (!(root instanceof PDFRef)) throw new Error('the signed PDF has no catalog reference');
  const previous = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(signed.subarray(-64).toString('latin1'));
  if (!previous) throw new Error('the signed PDF does not end with startxref');
  let next = doc.context.largestObjectNumber + 1;
  const parts: Buffer[] = [signed, latin1('\n')];
  let offset = signed.length + 1;
  const xref: Array<[number, number, number]> = [];
  const object = (number: number, body: Buffer, generation = 0) => {
    xref.push([number, generation, offset]);
    const bytes = Buffer.concat([latin1(`${number} ${generation} obj\n`), body, latin1('\nendobj\n')]);
    parts.push(bytes);
    offset += bytes.length;
  };
  const streams = (items: Buffer[]) =>
    items.map((bytes) => {
      const number = next++;
      object(number, Buffer.concat([latin1(`<< /Length ${bytes.length} >>\nstream\n`), bytes, latin1('\nendstream')]));
      return `${number} 0 R`;
    });
  const certs = streams(data.certificates);
  const ocsps = streams(data.ocsps);
  const crls = streams(data.crls);
  const dss = next++;
  const entries = [`/Type /DSS`, certs.length && `/Certs [${certs.join(' ')}]`, ocsps.length && `/OCSPs [${ocsps.join(' ')}]`, crls.length && `/CRLs [${crls.join(' ')}]`].filter(Boolean);
  object(dss, latin1(`<< ${entries.join(' ')} >>`));
  // The catalog again, as it was plus /DSS (the later definition of an object number wins).
  doc.catalog.set(PDFName.of('DSS'), PDFRef.of(dss));
  object(root.objectNumber, latin1(doc.catalog.toString()), root.generationNumber);
  const xrefAt = offset;
  const rows = xref.sort((a, b) => a[0] - b[0]).map(([number, generation, at]) => `${number} 1\n${String(at).padStart(10, '0')} ${String(generation).padStart(5, '0')} n \n`);
  const trailer = [`/Size ${next}`, `/Root ${root.toString()}`, info && `/Info ${info.toString()}`, id && `/ID ${id.toString()}`, `/Prev ${previous[1]}`].filter(Boolean).join(' ');
  parts.push(latin1(`xref\n${rows.join('')}trailer\n<< ${trailer} >>\nstartxref\n${xrefAt}\n%%EOF\n`));
  return Buffer.concat(parts);
}
