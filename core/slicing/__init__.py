"""``tf.strided_slice``: validation, the structured algorithm, ``SliceSpec``, slice expressions,
per-dimension explanations, spec editing (entries and mask bits) and source code for TensorFlow,
numpy and TF Java.

Layers, bottom up: ``tokens``, ``validate`` -> ``strided_slice`` -> ``analysis`` -> ``spec``
(``SliceSpec``, the op ``strided_slice``) -> ``expr``, ``editing``, ``feedback`` ->
``source_code``. The modules below ``spec`` name ``SliceSpec`` only in annotations.

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``. Pure Python + numpy
on shapes and views; never reads a file.
"""
