import type { RegistryDocumentView, RegistryView } from '../../projections/registry/queries.ts';

export function presentRegistry(view: RegistryView) {
  const { registryId, ...rest } = view;
  return { id: registryId, ...rest };
}

export function presentDocument(view: RegistryDocumentView) {
  const { registryDocumentId, blobId: _blobId, ...rest } = view;
  return { id: registryDocumentId, ...rest };
}
