// The answers to the front door's form post (issue 19), as templates the gateway fills: the new
// key shown once, or the form again with the error next to the field (site-format.ts:
// PAGE_TEMPLATES). The same page shell, stylesheet and script as GET /.
import { page } from './layout.ts';
import { keyResult, registrationForm } from './register-form.ts';

export function renderRegistered(): string {
  return page({
    title: 'Your API key: grain grading tables',
    description: 'Your new API key, shown once.',
    body: `<section class="result" aria-labelledby="result-title">
${keyResult('{{api_key}}', "curl -H 'X-API-Key: {{api_key}}' '{{origin}}/api/grains'", 'h1')}
<p><a href="/docs">API reference</a> · <a href="/">Home</a></p>
</section>`,
    script: '/assets/page.js',
  });
}

export function renderRegisterError(): string {
  return page({
    title: 'Get a free API key: grain grading tables',
    description: 'Register an e-mail address for a free API key.',
    body: `<h1>Get a free API key</h1>
${registrationForm('slots')}
<p><a href="/">Home</a> · <a href="/docs">API reference</a></p>`,
    script: '/assets/page.js',
  });
}
