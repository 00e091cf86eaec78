// The answers to a form, read from a posted body and checked against its definition (lib/forms/answers.ts): typed
// answers per form key, or one problem per refused input naming the field's label in the page's locale.
import { describe, expect, it } from 'vitest';
import { readAnswers, type RenderedForm } from '../../lib/forms/answers.ts';
import { FormDefinition } from '../../lib/forms/definition.ts';

const form = (fields: object[]): RenderedForm => ({ formId: crypto.randomUUID(), key: 'f', version: 1, definition: FormDefinition.parse({ fields }) });
const answer = (field: object, value: string | undefined, locale = 'en') => {
  const read = readAnswers([form([{ name: 'x', label: { en: 'X', de: 'Ix' }, ...field }])], value === undefined ? {} : { 'form.f.x': value }, locale);
  return read.problems.get('form.f.x') ?? { value: read.answers.f!.x };
};

describe('readAnswers', () => {
  it.each([
    [{ type: 'text', validation: { minLength: 2, maxLength: 4 } }, ' ab ', { value: 'ab' }],
    [{ type: 'text', validation: { minLength: 2 } }, 'a', { kind: 'tooShort', label: 'X', count: 2 }],
    [{ type: 'text', validation: { maxLength: 3 } }, 'abcd', { kind: 'tooLong', label: 'X', count: 3 }],
    [{ type: 'text' }, 'é'.repeat(1000), { value: 'é'.repeat(1000) }],
    [{ type: 'text' }, 'a'.repeat(1001), { kind: 'tooLong', label: 'X', count: 1000 }],
    [{ type: 'text', validation: { pattern: '[a-z]+' } }, 'abc1', { kind: 'pattern', label: 'X' }],
    [{ type: 'text', validation: { pattern: '(a|aa)+' } }, `${'a'.repeat(999)}b`, { kind: 'pattern', label: 'X' }],
    [{ type: 'email' }, 'ada@example.com', { value: 'ada@example.com' }],
    [{ type: 'email' }, 'ada@', { kind: 'email', label: 'X' }],
    [{ type: 'number', validation: { min: -1, max: 10 } }, '-0.5', { value: -0.5 }],
    [{ type: 'number' }, '1e3', { kind: 'number', label: 'X' }],
    [{ type: 'number', validation: { max: 10 } }, '11', { kind: 'max', label: 'X', limit: '10' }],
    [{ type: 'date', validation: { min: '2000-01-01' } }, '2024-02-29', { value: '2024-02-29' }],
    [{ type: 'date' }, '2023-02-29', { kind: 'date', label: 'X' }],
    [{ type: 'date', validation: { min: '2000-01-01' } }, '1999-12-31', { kind: 'min', label: 'X', limit: '2000-01-01' }],
    [{ type: 'phone' }, '+44 20 7946 0958', { value: '+442079460958' }],
    [{ type: 'phone' }, '020 7946 0958', { kind: 'phone', label: 'X' }],
    [{ type: 'select', options: ['a', { value: 'b', label: 'B' }] }, 'b', { value: 'b' }],
    [{ type: 'select', options: ['a'] }, 'c', { kind: 'option', label: 'X' }],
    [{ type: 'boolean' }, undefined, { value: false }],
    [{ type: 'boolean', required: true }, 'true', { value: true }],
    [{ type: 'boolean', required: true }, undefined, { kind: 'required', label: 'X' }],
    [{ type: 'text', required: true }, '   ', { kind: 'required', label: 'X' }],
    [{ type: 'number' }, '', { value: undefined }],
  ])('case %# (field %j)', (field, value, expected) => {
    expect(answer(field, value)).toEqual(expected);
  });

  it('names the label in the locale asked for, falling back to English', () => {
    expect(answer({ type: 'text', required: true }, '', 'de')).toEqual({ kind: 'required', label: 'Ix' });
    expect(answer({ type: 'text', required: true }, '', 'fr')).toEqual({ kind: 'required', label: 'X' });
  });

  it('keeps what was posted per input and the answers per form key', () => {
    const forms = [form([{ name: 'a', type: 'text', label: 'A' }]), { ...form([{ name: 'a', type: 'number', label: 'A' }]), key: 'g' }];
    const read = readAnswers(forms, { 'form.f.a': 'one', 'form.g.a': 'two', other: 'x' }, 'en');
    expect(read.values).toEqual({ 'form.f.a': 'one', 'form.g.a': 'two' });
    expect(read.answers).toEqual({ f: { a: 'one' }, g: {} });
    expect([...read.problems]).toEqual([['form.g.a', { kind: 'number', label: 'A' }]]);
  });
});
