const DOT = '•••';

/**
 * Where the link went, recognisable to its owner but useless to anyone else: a phone number keeps its
 * country prefix, first digit and last two (`+31 6 ••• ••• 78`), an e-mail address its first letter and
 * domain.
 */
export function maskIdentifier(identifier: string): string {
  const at = identifier.lastIndexOf('@');
  if (at > 0) return `${identifier[0]}${DOT}@${identifier.slice(at + 1)}`;
  const digits = identifier.replace(/\D/g, '');
  if (digits.length < 6) return DOT;
  return `+${digits.slice(0, 2)} ${digits[2]} ${DOT} ${DOT} ${digits.slice(-2)}`;
}
