// Numbers as xgboost's C++ prints them: an ostream's default (%g style) with a given number of
// significant digits, no trailing zeros, a two-digit signed exponent. Metric names (`error@0.3`)
// use 6 digits; float parameters in the JSON model use max_digits10 (9) of the float32 value.
export function formatG(x: number, digits: number): string {
  let s = Number(x).toPrecision(digits);
  if (s.includes('e')) {
    let [m, e] = s.split('e') as [string, string];
    if (m.includes('.')) m = m.replace(/0+$/, '').replace(/\.$/, '');
    const en = Number(e);
    return `${m}e${en < 0 ? '-' : '+'}${String(Math.abs(en)).padStart(2, '0')}`;
  }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}
