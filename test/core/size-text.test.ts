import { describe, expect, it } from 'vitest';
import { limitText, overLimit, sizeText } from '../../src/core/size-text.js';

const MB = 1_048_576;

describe('size text: one unit (MB as the config counts it), the configured number', () => {
  it.each([
    // [size bytes, limit as configured (MB), message]
    [26 * MB, 25, '26 MB is over the 25 MB limit'],
    [25 * MB + 1, 25, '25.01 MB is over the 25 MB limit'],
    [25.3 * MB, 25, '25.3 MB is over the 25 MB limit'],
    [2 * MB, 1, '2 MB is over the 1 MB limit'],
    [0.6 * MB, 0.5, '0.6 MB is over the 0.5 MB limit'],
    [0.5 * MB + 10, 0.5, '0.51 MB is over the 0.5 MB limit'],
    [2049 * MB, 2048, '2049 MB is over the 2048 MB limit'],
    [1.26 * MB, 1.25, '1.3 MB is over the 1.25 MB limit'],
    [3.04 * MB, 1, '3 MB is over the 1 MB limit'],
    [2000, 0.001, '0.0019 MB is over the 0.001 MB limit'],
  ])('%d bytes over %d MB: %s', (size, configured, text) => {
    // As the relay turns the config into bytes (media.maxOutboundMb × 1,048,576, floored).
    expect(overLimit(size, Math.floor(configured * MB))).toBe(text);
  });

  it('a size just over reads as a larger number than the limit, never an equal one', () => {
    const max = Math.floor(25 * MB);
    expect(sizeText(max + 1, max)).toBe('25.01 MB');
    expect(sizeText(max + 100_000, max)).toBe('25.1 MB');
    expect(sizeText(max - 1 + 2 * MB, max)).toBe('27 MB');
  });

  it.each([
    [25, '25 MB'],
    [0.5, '0.5 MB'],
    [16, '16 MB'],
    [20, '20 MB'],
    [2.25, '2.25 MB'],
    [0.001, '0.001 MB'],
  ])('a limit of %d MB reads "%s"', (mb, text) => {
    expect(limitText(Math.floor(mb * MB))).toBe(text);
  });
});
