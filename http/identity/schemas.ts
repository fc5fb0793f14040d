import Type from 'typebox';
import { MODULES, PERMISSIONS } from '../../domain/identity/access.ts';

const DateTime = Type.String({ format: 'date-time' });

export const SessionSchema = Type.Object(
  {
    id: Type.String(),
    accessToken: Type.Optional(Type.String({ description: 'JWT (HS256); only in the reply of POST /auth/authenticate' })),
    expiresAt: DateTime,
    expiresIn: Type.Integer({ description: 'token lifetime in seconds' }),
    userId: Type.String(),
    organizationId: Type.String(),
    loggedOutAt: Type.Union([DateTime, Type.Null()]),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '6553f1c2a1b2c3d4e5f60718',
        accessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzaWQiOiI2NTUzZjFjMiJ9.c2lnbmF0dXJl',
        expiresAt: '2026-11-24T10:00:00.000Z',
        expiresIn: 86400,
        userId: '6553f1c2a1b2c3d4e5f60716',
        organizationId: '6553f1c2a1b2c3d4e5f60715',
        loggedOutAt: null,
        createdAt: '2026-11-23T10:00:00.000Z',
        updatedAt: '2026-11-23T10:00:00.000Z',
      },
    ],
  },
);

export const SessionDetailSchema = Type.Object({
  id: Type.String(),
  expiresAt: DateTime,
  userId: Type.String(),
  organizationId: Type.String(),
  loggedOutAt: Type.Union([DateTime, Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime,
  organization: Type.Object({ id: Type.String(), name: Type.String(), modules: Type.Array(Type.Enum(MODULES)), flags: Type.Record(Type.String(), Type.Boolean()) }),
  user: Type.Object({ id: Type.String(), name: Type.String(), permissions: Type.Array(Type.Enum(PERMISSIONS)) }),
  credential: Type.Object({ id: Type.String(), clientId: Type.String() }),
});
