/**
 * numberFromText decides, for texts of 16 characters or more, whether the digits survive the trip through a double
 * by scanning both texts in place (issue 21: it runs for every long number of every live update). It must decide
 * exactly as the comparison of canonical digit strings it replaced, kept here as the oracle.
 */
import assert from 'node:assert/strict';
import { numberFromText } from '../../src/protocol/format';

const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** "<sign><significant digits>e<exponent>" for the value 0.<digits> x 10^exponent, "0" for zero (the old code). */
function canonical(s: string): string {
  const neg = s[0] === '-';
  const body = neg ? s.slice(1) : s;
  const e = body.search(/[eE]/);
  const mantissa = e < 0 ? body : body.slice(0, e);
  let exp = e < 0 ? 0 : parseInt(body.slice(e + 1), 10);
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  exp += dot < 0 ? mantissa.length : dot;
  let a = 0;
  while (a < digits.length && digits[a] === '0') {
    a++;
    exp--;
  }
  let b = digits.length;
  while (b > a && digits[b - 1] === '0') b--;
  if (a === b) return '0';
  return `${neg ? '-' : ''}${digits.slice(a, b)}e${exp}`;
}

function oracle(s: string): number | undefined {
  if (!NUMBER_RE.test(s)) return undefined;
  const n = +s;
  if (!Number.isFinite(n)) return undefined;
  if (s.length < 16) return n;
  if (!/[.eE]/.test(s)) return Number.isSafeInteger(n) ? n : undefined;
  return canonical(s) === canonical(String(n)) ? n : undefined;
}

/** A small deterministic generator (no Math.random: a failure must be reproducible). */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

describe('numberFromText: long decimal texts', function () {
  it('Java-printed doubles, as a live `sentAt` arrives, are numbers', function () {
    assert.equal(numberFromText('1.795748543966765E12'), 1795748543966.765);
    assert.equal(numberFromText('1.7957485439685332E12'), 1795748543968.5332);
    assert.equal(numberFromText('-1.7957485439685332E12'), -1795748543968.5332);
    assert.equal(numberFromText('1795748543968.5332'), 1795748543968.5332);
    assert.equal(numberFromText('0.0000000000000000001234'), 1.234e-19);
  });

  it('long texts that are not plain decimals are not numbers', function () {
    for (const s of [
      '1.7957485439685332E',
      '1.7957485439685332E+',
      '1.79574854396853.2E12',
      '01.795748543968533E12',
      '+1.795748543968533E12',
      '1.7957485439685332E12 ',
      '-.17957485439685332E13',
      '1.7957485439685332e1x',
      '17957485439685332.',
      '--1795748543968533',
    ]) {
      assert.equal(numberFromText(s), undefined, s);
    }
  });

  it('texts whose digits a double cannot keep stay text', function () {
    assert.equal(numberFromText('1.7957485439685332123E12'), undefined);
    assert.equal(numberFromText('0.30000000000000001'), undefined);
    assert.equal(numberFromText('4.9406564584124654E-324'), undefined); // a subnormal keeps fewer digits
  });

  it('agrees with the canonical digit comparison on 200,000 generated texts', function () {
    const next = rng(21);
    const digit = () => String(Math.floor(next() * 10));
    const run = (n: number, zeros: number) => {
      let s = '';
      for (let i = 0; i < n; i++) s += next() < zeros ? '0' : digit();
      return s;
    };
    for (let i = 0; i < 200000; i++) {
      let s: string;
      const form = next();
      if (form < 0.3) {
        // a double printed the JS or the Java way
        const v = (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
        s = next() < 0.5 ? String(v) : v.toExponential().replace('e+', 'E');
      } else {
        // arbitrary digits: integer part, fraction, exponent, with runs of zeros (trailing, leading, inside)
        const int = next() < 0.3 ? '0' : String(1 + Math.floor(next() * 9)) + run(Math.floor(next() * 18), 0.3);
        const frac = next() < 0.8 ? `.${run(1 + Math.floor(next() * 20), next() < 0.5 ? 0.1 : 0.7)}` : '';
        const exp =
          next() < 0.5
            ? `${next() < 0.5 ? 'e' : 'E'}${['', '+', '-'][Math.floor(next() * 3)]}${Math.floor(next() * 330)}`
            : '';
        s = `${next() < 0.3 ? '-' : ''}${int}${frac}${exp}`;
      }
      if (next() < 0.25) {
        // not always a plain decimal any more: one character replaced, inserted or removed
        const at = Math.floor(next() * (s.length + 1));
        const ch = '0123456789.eE+- x'[Math.floor(next() * 17)];
        const how = next();
        s =
          how < 0.4
            ? s.slice(0, at) + ch + s.slice(at + 1)
            : how < 0.8
              ? s.slice(0, at) + ch + s.slice(at)
              : s.slice(0, at) + s.slice(at + 1);
      }
      assert.equal(numberFromText(s), oracle(s), s);
    }
  });

  it('short and plain decimals read exactly as `+s` reads them (300,000 texts: signs, fractions, exponents, zeros)', function () {
    // Texts of 15 digits or fewer take a fast path (the digits as an integer, times or over a power of ten): it must
    // give the very double `+s` gives, -0 included.
    const next = rng(17);
    const digits = (n: number) => {
      let s = String(1 + Math.floor(next() * 9));
      for (let i = 1; i < n; i++) s += next() < 0.15 ? '0' : String(Math.floor(next() * 10));
      return s;
    };
    let fast = 0;
    for (let i = 0; i < 300000; i++) {
      const d = digits(1 + Math.floor(next() * 15));
      const cut = Math.floor(next() * (d.length + 1));
      const lead = next() < 0.2 ? `0.${'0'.repeat(Math.floor(next() * 6))}` : '';
      let s = lead ? `${lead}${d}` : cut === d.length || next() < 0.3 ? d : `${d.slice(0, cut) || '0'}.${d.slice(cut)}`;
      if (next() < 0.15) s += '0'.repeat(1 + Math.floor(next() * 3)); // trailing zeros (of the integer or the fraction)
      if (next() < 0.35)
        s += `${next() < 0.5 ? 'e' : 'E'}${['', '+', '-'][Math.floor(next() * 3)]}${Math.floor(next() * 40)}`;
      if (next() < 0.4) s = `-${s}`;
      if (next() < 0.01) s = next() < 0.5 ? '-0' : '-0.0';
      const want = oracle(s);
      assert.equal(numberFromText(s), want, s);
      if (want !== undefined && s.length < 16) fast++;
    }
    assert.ok(fast > 150000, `${fast} short plain decimals among them`);
  });

  it('17-digit decimals on and beside an exact tie between two doubles read as `+s` reads them (rounding to even)', function () {
    // Between 2^52 and 2^53 the doubles are the integers, so "N.5" (17 digits) lies exactly halfway between two of
    // them: the 17-digit path must not decide it from its own arithmetic, and "N.4" / "N.6" must fall on the right
    // side.
    const next = rng(5);
    for (let i = 0; i < 20000; i++) {
      const n = 4503599627370496 + Math.floor(next() * 4503599627370495);
      for (const tail of ['.4', '.5', '.6', '.49', '.51']) {
        for (const sign of ['', '-']) {
          const s = `${sign}${n}${tail}`;
          assert.equal(numberFromText(s), oracle(s), s);
        }
      }
    }
  });

  it('agrees with the canonical digit comparison on 17-digit texts: doubles printed both ways, and their last digit moved', function () {
    // 17 significant digits are decided without printing the double (survives17): the shortest form of a double,
    // and texts one to four units away in the last digit (most of them read back as the same double, or its
    // neighbour, without being its shortest form). Over a million texts: a few seconds, more on a loaded machine.
    this.timeout(60000);
    const next = rng(17);
    let seventeen = 0;
    const wrong: string[] = [];
    for (let i = 0; i < 150000; i++) {
      const v = (1 + next() * 9) * 10 ** Math.floor(next() * 24 - 7);
      const shortest = next() < 0.5 ? String(v) : v.toExponential().replace('e+', 'E');
      const texts = [shortest];
      const m = /^(\d)\.(\d{16})(E.*|e.*)?$/.exec(v.toExponential(16).replace('e+', 'E'));
      if (m) {
        const digits = BigInt(m[1] + m[2]);
        for (const k of [-4, -3, -2, -1, 1, 2, 3, 4]) {
          const moved = (digits + BigInt(k)).toString();
          if (moved.length !== 17) continue;
          texts.push(`${moved[0]}.${moved.slice(1)}${m[3] ?? ''}`);
        }
      }
      for (const t of texts) {
        const sig = t
          .replace(/[eE].*$/, '')
          .replace('.', '')
          .replace(/^0+/, '')
          .replace(/0+$/, '');
        if (sig.length === 17) seventeen++;
        for (const u of [t, `-${t}`])
          if (numberFromText(u) !== oracle(u))
            wrong.push(`${u}: ${numberFromText(u)} where the digit comparison says ${oracle(u)}`);
      }
    }
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} texts decided otherwise`);
    assert.ok(seventeen > 500000, `17-digit texts tried: ${seventeen}`);
  });
});
