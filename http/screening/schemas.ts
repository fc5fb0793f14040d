import Type, { type TSchema } from 'typebox';
import { SCREENING_LISTS } from '../../domain/screening/index.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ListStateSchema = Type.Object({
  list: Type.Union(SCREENING_LISTS.map((list) => Type.Literal(list))),
  listTitle: Type.String(),
  status: Type.Union([Type.Literal('LOADED'), Type.Literal('NOT_LOADED'), Type.Literal('NOT_CONFIGURED')], {
    description: 'LOADED: screening uses the version below; NOT_LOADED: configured, no version read yet; NOT_CONFIGURED: no source, not screened',
  }),
  source: Nullable(
    Type.Object({
      kind: Type.Union([Type.Literal('FILE'), Type.Literal('ADDRESS')]),
      location: Type.String({ description: "a file's name, or an address without its userinfo, query and fragment" }),
    }),
  ),
  listVersionId: Nullable(Type.String()),
  publishedAt: Nullable(Type.String({ description: 'ISO 8601 date (or date-time) of publication' })),
  publishedAtFrom: Nullable(Type.Union([Type.Literal('FILE'), Type.Literal('FETCH')])),
  sha256: Nullable(Type.String({ description: 'of the file as downloaded (the ZIP, when the source serves one)' })),
  byteCount: Nullable(Type.Integer()),
  entryCount: Nullable(Type.Integer()),
  loadedAt: Nullable(Type.String({ format: 'date-time' })),
  checkedAt: Nullable(Type.String({ format: 'date-time', description: 'last time the source was read whole, this version found again or loaded' })),
  lastFailure: Nullable(Type.Object({ at: Type.String({ format: 'date-time' }), message: Type.String() }, { description: 'the last load that failed (older than checkedAt: a later read succeeded)' })),
});

export const ListsReply = Type.Object({ nameThreshold: Type.Number(), lists: Type.Array(ListStateSchema) });
