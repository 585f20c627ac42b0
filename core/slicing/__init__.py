"""``tf.strided_slice``: validation, the structured algorithm, ``SliceSpec``, slice expressions,
per-dimension explanations and source code for TensorFlow, numpy and TF Java.

May import: ``core.errors``. Pure Python + numpy on shapes and views; never reads a file.
"""
