import type { PublicFormErrors, PublicFormField, PublicFormValues } from '../../domain/public-form/form.ts';
import { PublicFormMessages as M } from '../../domain/public-form/messages.ts';
import type { PublicTemplate } from '../../application/public-form/open.ts';
import { page } from '../collection/recipient-html.ts';
import { escape } from '../../domain/shared/html.ts';

const EMPTY: PublicFormValues = { nome: '', documento: '', email: '', telefone: '' };

/** One labelled input; the browser checks what its attributes say, the server checks everything again. */
function field(name: PublicFormField, label: string, attributes: string, values: PublicFormValues, errors: PublicFormErrors): string {
  const error = errors[name];
  const id = `campo-${name}`;
  return `<label for="${id}">${escape(label)}</label>
<input id="${id}" name="${name}" value="${escape(values[name])}" ${attributes}${error ? ` aria-invalid="true" aria-describedby="${id}-erro"` : ''}>
${error ? `<p class="erro" id="${id}-erro" data-field="${name}">${escape(error)}</p>` : ''}`;
}

/** The public form: who asks, what will be asked, and the four fields that open the collection; `alert` above them when set. */
export function publicFormPage(template: PublicTemplate, values: PublicFormValues = EMPTY, errors: PublicFormErrors = {}, alert?: string): string {
  const items = template.items.map((item) => `<li>${escape(item.title)}</li>`).join('');
  const shown = alert ?? (Object.keys(errors).length > 0 ? M.fixErrors : null);
  return page(
    template.name,
    `<h1>${escape(template.name)}</h1>
<p>${escape(template.organizationName)} pede os dados abaixo para abrir a sua solicitação. Em seguida você verá o que enviar.</p>
${template.description ? `<p class="mensagem">${escape(template.description)}</p>` : ''}
<p>Itens que serão pedidos:</p><ul>${items}</ul>
${shown ? `<p class="erro" role="alert">${escape(shown)}</p>` : ''}
<form method="post" action="/formulario/${template.templateId}">
${field('nome', 'Nome completo (ou razão social)', 'required minlength="2" maxlength="120" autocomplete="name"', values, errors)}
${field('documento', 'CPF ou CNPJ', 'required inputmode="numeric" maxlength="18" pattern="[0-9./ -]{11,18}" title="Somente números, com ou sem pontuação"', values, errors)}
${field('email', 'E-mail', 'type="email" required maxlength="254" autocomplete="email"', values, errors)}
${field('telefone', 'Telefone com DDD (opcional)', 'type="tel" maxlength="20" autocomplete="tel"', values, errors)}
<button type="submit">Começar</button>
</form>`,
  );
}
