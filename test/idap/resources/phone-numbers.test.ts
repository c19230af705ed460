import { normalizePhone } from '../../../src/idap/resources/resource-writes';
import { mergeExtracted, type Extracted } from '../../../src/research/extract';

/** Phone numbers as resource keys: E.164 by libphonenumber-js, read in the job's or the company's country. */
describe('normalizePhone', () => {
  it.each([
    ['+31 30 123 4567', undefined, '+31301234567'],
    ['+31 (0)20 123 4567', undefined, '+31201234567'], // the trunk 0 written after the country code
    ['0031-20-1234567', undefined, '+31201234567'],
    ['020 123 4567', 'NL', '+31201234567'], // national, read in the job's country
    ['020 123 4567', 'nl', '+31201234567'],
    ['0031 20 123 4567', 'NL', '+31201234567'],
    ['030-1234567', 'NL', '+31301234567'],
    ['+44 20 7946 0958', 'NL', '+442079460958'], // international whatever the country
    ['26 12 34 56', 'LU', '+35226123456'],
    ['(030) 1234567', 'DE', '+49301234567'],
  ])('reads %s in %s as %s', (raw, country, expected) => {
    expect(normalizePhone(raw, country)).toBe(expected);
  });

  it('keeps a number it cannot read as a valid one as before: its digits, + for an international one', () => {
    expect(normalizePhone('020 123 4567')).toBe('0201234567'); // national, and no country to read it in
    expect(normalizePhone('020 123 4567', 'XX')).toBe('0201234567'); // not a country
    expect(normalizePhone('+1 23 45 67 89')).toBe('+123456789'); // not a valid number anywhere
    expect(normalizePhone('00 999 123 456 7')).toBe('+9991234567');
  });

  it('refuses fewer than 6 or more than 15 digits, whatever the country', () => {
    expect(normalizePhone('12345', 'NL')).toBeNull();
    expect(normalizePhone('+31 2', 'NL')).toBeNull();
    expect(normalizePhone(`+${'1'.repeat(16)}`)).toBeNull();
    expect(normalizePhone('call us', 'NL')).toBeNull();
  });

  it('merges the pages of a site by the number in E.164, so one number written two ways is one phone', () => {
    const page = (phones: string[]): Extracted => ({
      title: null,
      description: null,
      legalName: null,
      emails: [],
      phones,
      people: [],
      linkedin: [],
      registrationNumber: null,
      links: [],
    });
    const merged = mergeExtracted([page(['+31 20 123 4567']), page(['020-1234567', 'tel'])], 'NL');
    expect(merged.phones).toHaveLength(1);
    expect(normalizePhone(merged.phones[0], 'NL')).toBe('+31201234567');
    const elsewhere = mergeExtracted([page(['+31 20 123 4567']), page(['020-1234567'])], null);
    expect(elsewhere.phones).toEqual(['+31 20 123 4567', '020-1234567']);
  });
});
