import Type from 'typebox';
import { MODULES, PERMISSIONS } from '../../domain/identity/access.ts';

const DateTime = Type.String({ format: 'date-time' });

export const SessionSchema = Type.Object({
  id: Type.String(),
  accessToken: Type.Optional(Type.String({ description: 'JWT (HS256); only in the reply of POST /auth/authenticate' })),
  expiresAt: DateTime,
  expiresIn: Type.Integer({ description: 'token lifetime in seconds' }),
  userId: Type.String(),
  organizationId: Type.String(),
  loggedOutAt: Type.Union([DateTime, Type.Null()]),
  createdAt: DateTime,
  updatedAt: DateTime,
});

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
