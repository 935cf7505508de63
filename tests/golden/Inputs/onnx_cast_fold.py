"""Writes an ONNX model whose constant, f32 [NaN, 0, -0, 2.5, -inf], is cast to bool and then to
u8 and added to the input, and to i8: the importer folds the casts (tests/golden/onnx/cast-fold.dsp
reads the model this wrote, Inputs/cast_fold.onnx).

  onnx_cast_fold.py tests/golden/Inputs/cast_fold.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

c = numpy_helper.from_array(np.array([np.nan, 0.0, -0.0, 2.5, -np.inf], dtype=np.float32), "cf")
nodes = [helper.make_node("Constant", [], ["c"], value=c),
         helper.make_node("Cast", ["c"], ["b"], to=TensorProto.BOOL),
         helper.make_node("Cast", ["b"], ["u"], to=TensorProto.UINT8),
         helper.make_node("Cast", ["c"], ["i"], to=TensorProto.INT8),
         helper.make_node("Add", ["x", "u"], ["y"]),
         helper.make_node("Add", ["z", "i"], ["w"])]
graph = helper.make_graph(nodes, "cast_fold",
                          [helper.make_tensor_value_info("x", TensorProto.UINT8, [5]),
                           helper.make_tensor_value_info("z", TensorProto.INT8, [5])],
                          [helper.make_tensor_value_info("y", TensorProto.UINT8, [5]),
                           helper.make_tensor_value_info("w", TensorProto.INT8, [5])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
