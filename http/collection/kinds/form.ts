import Type from 'typebox';

const FieldKey = Type.String({ pattern: '^[a-z][a-z0-9_]{0,59}$', description: 'names the input key form.<template>.<key>' });

/** A FORM item's definition, as a template or an ad hoc item gives it. */
export const FormConfigSchema = Type.Object({
  fields: Type.Array(
    Type.Object({
      key: FieldKey,
      label: Type.String({ minLength: 1, maxLength: 200 }),
      type: Type.Union([Type.Literal('NUMBER'), Type.Literal('STRING'), Type.Literal('BOOLEAN'), Type.Literal('DATE')]),
      required: Type.Boolean({ default: true }),
      choices: Type.Union([Type.Array(Type.Union([Type.String({ maxLength: 200 }), Type.Number()]), { minItems: 1, maxItems: 100 }), Type.Null()], { default: null }),
      validation: Type.Union([
        Type.Object({
          min: Type.Optional(Type.Number()),
          max: Type.Optional(Type.Number()),
          minLength: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
          maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
          pattern: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        Type.Null(),
      ], { default: null }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
}, { description: 'FORM items: the questions' });
