// The command line's name shortening (tests/cli/report_text_table_test.cc), ported: the same
// names give the same short forms.
import { describe, expect, test } from 'vitest';
import { displayWidth, shortenName, shortenNames } from './name_shortening';

describe('shortenName', () => {
  test('short names stay whole', () => expect(shortenName('aten::mm', 20)).toBe('aten::mm'));

  test('a scope path keeps its first and last components', () =>
    expect(shortenName('replica_3/model/encoder/layer_2/dense/MatMul:MatMul', 40)).toBe('replica_3/…/layer_2/dense/MatMul:MatMul'));

  test('a C++ function keeps its qualified name', () => {
    const kernel =
      'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> ' +
      '>(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)';
    expect(shortenName(kernel, 60)).toBe('at::native::vectorized_elementwise_kernel');
    expect(shortenName(kernel, 35)).toBe('…::vectorized_elementwise_kernel');
    expect(shortenName('void ns::(anonymous namespace)::kernel<int>(int*)', 40)).toBe('ns::(anonymous namespace)::kernel');
  });

  test('never wider than asked', () => {
    for (const w of [1, 5, 12, 30]) expect(displayWidth(shortenName('a_very_long_name_without_any_structure_at_all', w))).toBeLessThanOrEqual(w);
  });
});

describe('shortenNames', () => {
  test('scope paths keep the components that differ', () => {
    const names = [
      'replica_6/bert/encoder/transformer/layer_17/self_attention/dropout/random_uniform/RandomUniform:RandomUniform',
      'replica_6/bert/encoder/transformer/layer_22/self_attention/dropout/random_uniform/RandomUniform:RandomUniform',
      'replica_6/bert/encoder/transformer/layer_22/self_attention/dropout/random_uniform/RandomUniform:RandomUniform',
    ];
    const shown = shortenNames(names, 70);
    expect(shown[0]).toBe('replica_6/…/layer_17/…/random_uniform/RandomUniform:RandomUniform');
    expect(shown[1]).toBe('replica_6/…/layer_22/…/random_uniform/RandomUniform:RandomUniform');
    expect(shown[2]).toBe(shown[1]);
  });

  test('C++ functions keep the template arguments that differ', () => {
    const shown = shortenNames(
      ['void at::native::kernel<4, at::native::FillFunctor<float> >(int)', 'void at::native::kernel<4, at::native::AddFunctor<float> >(int)'],
      41,
    );
    expect(shown).toEqual(['at::native::kernel<…, FillFunctor<float>>', 'at::native::kernel<…, AddFunctor<float>>']);
  });

  test('distinct names stay distinct when narrow', () => {
    const names = Array.from(
      { length: 12 },
      (_, i) => `void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<T${i}, Eigen::GpuDevice>, long>(long)`,
    );
    const shown = shortenNames(names, 30);
    expect(new Set(shown).size).toBe(names.length);
    for (const s of shown) expect(displayWidth(s)).toBeLessThanOrEqual(30);
  });
});
