const warned = new Set<string>();

/**
 * Warns once per page that `name` is deprecated and what replaces it (names kept one release as
 * aliases; CHANGELOG lists them).
 */
export function warnDeprecated(name: string, replacement: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  console.warn(`tessera: ${name} is deprecated and goes in the next release; use ${replacement}.`);
}
