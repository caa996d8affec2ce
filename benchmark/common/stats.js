'use strict';
// Welch's t-test and confidence intervals, for the compare runner's table
// (the same quantities Node's benchmark/compare.R prints).

const { mean, variance } = require('./util');

function logGamma(x) {
  // Lanczos approximation (g = 7, n = 9).
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

// Continued fraction for the regularized incomplete beta function I_x(a, b).
function betaContinuedFraction(x, a, b) {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - (a + b) * x / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d; h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-12) break;
  }
  return h;
}

function incompleteBeta(x, a, b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return front * betaContinuedFraction(x, a, b) / a;
  return 1 - front * betaContinuedFraction(1 - x, b, a) / b;
}

// Two-sided p-value of Student's t with `df` degrees of freedom.
function tTestPValue(t, df) {
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

// The t value whose two-sided p-value is `alpha` (bisection).
function tCritical(alpha, df) {
  let lo = 0;
  let hi = 1000;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (tTestPValue(mid, df) > alpha) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

// Compares samples `a` (old) and `b` (new): improvement in % of old's mean,
// Welch's p-value, and the ± half-width of the confidence interval of the
// difference (in % of old's mean) at 5%, 1% and 0.1%.
function welch(a, b) {
  const ma = mean(a);
  const mb = mean(b);
  const va = a.length > 1 ? variance(a) / a.length : 0;
  const vb = b.length > 1 ? variance(b) / b.length : 0;
  const se = Math.sqrt(va + vb);
  const improvement = (mb / ma - 1) * 100;
  if (se === 0 || a.length < 2 || b.length < 2) {
    return { improvement, p: NaN, accuracy: [NaN, NaN, NaN] };
  }
  const df = (va + vb) ** 2 / ((va ** 2) / (a.length - 1) + (vb ** 2) / (b.length - 1));
  const t = (mb - ma) / se;
  const p = tTestPValue(Math.abs(t), df);
  const accuracy = [0.05, 0.01, 0.001].map((alpha) => tCritical(alpha, df) * se / ma * 100);
  return { improvement, p, accuracy };
}

function stars(p) {
  if (!(p < 0.05)) return '';
  return p < 0.001 ? '***' : p < 0.01 ? '**' : '*';
}

module.exports = { welch, stars, tTestPValue, tCritical };
