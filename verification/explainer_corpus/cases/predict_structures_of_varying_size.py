"""A graph network asked to predict one crystal structure at a time, each a different size."""

import keras
import numpy as np

SOURCE = "https://github.com/materialyzeai/megnet/issues/161"
SUMMARY = "predict_structure applied to each structure warns predict_function retraced"
EXPECT = [
    (
        "TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed",
        "data[0][0][0]",  # the atoms; the bonds and their atom indices: among its others
        "shape",
    )  # Keras 3's predict function reduces retracing: one retrace, then general
]
WRAPPED = False


def megnet_model(n_atom_feature=4, n_bond_feature=3):
    atoms = keras.Input((None, n_atom_feature))
    bonds = keras.Input((None, n_bond_feature))
    index1 = keras.Input((None,), dtype="int32")
    messages = keras.layers.Dense(8)(bonds)
    gathered = keras.ops.take(keras.layers.Dense(8)(atoms)[0], index1[0], axis=0)
    state = keras.ops.mean(messages + keras.ops.expand_dims(gathered, 0), axis=1)
    return keras.Model([atoms, bonds, index1], keras.layers.Dense(1)(state))


def predict_structure(model, n_atoms):
    n_bonds = 3 * n_atoms
    graph = [
        np.random.rand(1, n_atoms, 4),
        np.random.rand(1, n_bonds, 3),
        np.random.randint(0, n_atoms, (1, n_bonds)).astype("int32"),
    ]
    return model.predict(graph, verbose=0)  # hazard: TFL004


model = megnet_model()
for n_atoms in (2, 5, 8, 3, 12):  # test_data['structure'].apply(predict_verify)
    predict_structure(model, n_atoms)
