"""drfbench._inputs, the one reader of every input file (issue 34): labels stay labels, YAML
read by 1.2's core schema, and work bounded by what the file says (docs/accepts.md)."""
import importlib

import numpy as np
import pandas as pd
import pytest

from drfbench import _inputs, _validation, drf, drfh, hdrf

# the readers' modules (a package may export a function of the module's name)
workloads, drfq_model, packer_workload, drf_tasks, drfh_exact, drfh_trace = (
    importlib.import_module(f"drfbench.{m}") for m in
    ("dcdrf.workloads", "drfq.model", "packer.workload", "drf.tasks", "drfh.exact", "drfh.trace"))


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def yaml(tmp_path, text):
    return _inputs.document(write(tmp_path, "doc.yaml", text), "tree")


# --------------------------------------------------------------------------------------
# YAML: 1.2's core schema
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("written, value", [
    ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("y", "y"), ("n", "n"),
    ("true", True), ("False", False),
    ("010", 10), ("0o10", 8), ("0x10", 16), ("-7", -7), ("+5", 5),
    ("1e3", 1000.0), ("1.5", 1.5), ("-.5", -0.5), ("1.", 1.0), (".inf", np.inf),
    ("-.Inf", -np.inf),
    ("1:30", "1:30"), ("2024-01-01", "2024-01-01"), ("0b11", "0b11"), ("1_000", "1_000"),
    ("null", None), ("~", None), ("", None), ("'010'", "010"),
])
def test_scalars_by_the_core_schema(tmp_path, written, value):
    got = yaml(tmp_path, f"a: {written}\n")["a"]
    assert got == value and type(got) is type(value)


def test_nan_is_a_float(tmp_path):
    assert np.isnan(yaml(tmp_path, "a: .nan\n")["a"])


@pytest.mark.parametrize("key", ["yes", "on", "null", "~", "0x10", "2024-01-01", "1", "true",
                                 "1e3", "010"])
def test_keys_are_names_as_written(tmp_path, key):
    assert list(yaml(tmp_path, f"{key}: 1\n")) == [key]


def test_a_queue_named_like_a_yaml_1_1_scalar(tmp_path):
    t = hdrf.tree(write(tmp_path, "t.yaml", "resources: [cpu]\nchildren:\n"
                        "  yes: {demand: [1], tasks: 010}\n  null: {demand: [1], weight: 1e3}\n"
                        "  2024-01-01: {demand: [1]}\n  0x10: {demand: [1]}\n"))
    assert t.leaf_paths == ("yes", "null", "2024-01-01", "0x10")
    assert t.tasks[0] == 10 and t.weight[2] == 1000


def test_sexagesimal_is_text(tmp_path):
    path = write(tmp_path, "t.yaml", "resources: [cpu]\nchildren:\n  a: {demand: [1], "
                 "weight: 1:30}\n")
    with pytest.raises(ValueError, match="node 'a': weight must be a number, got '1:30'"):
        hdrf.tree(path)


def test_merge_keys_override(tmp_path):
    doc = yaml(tmp_path, "base: &b {weight: 2, demand: [1]}\nleaf:\n  <<: *b\n  weight: 3\n"
                         "two:\n  <<: [{a: 1}, {a: 2, b: 2}]\n")
    assert doc["leaf"] == {"weight": 3, "demand": [1]}
    assert doc["two"] == {"a": 1, "b": 2}


def test_duplicate_keys_refused_with_both_lines(tmp_path):
    with pytest.raises(ValueError, match=r"doc.yaml, line 3, column 1: duplicate key 'a' "
                                         r"\(also on line 1\)"):
        yaml(tmp_path, "a: 1\nb: 2\na: 3\n")


@pytest.mark.parametrize("text", ["? [1, 2]\n: x\n", "? {a: 1}\n: x\n"])
def test_complex_keys_refused_with_the_line(tmp_path, text):
    with pytest.raises(ValueError, match=r"doc.yaml, line 1, column 3: a key must be a name"):
        yaml(tmp_path, text)


def bomb(levels, width=9):
    lines = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_alias_bomb_refused_before_it_is_built(tmp_path):
    text = bomb(9)                                       # 9**9 = 387 million leaves
    assert len(text) < 1024
    with pytest.raises(ValueError, match=r"doc.yaml: the document expands to more than "
                                         r"4,194,304 nodes"):
        yaml(tmp_path, text)


def test_aliases_within_the_bound_are_read(tmp_path):
    doc = yaml(tmp_path, bomb(3))                        # 9**3 leaves, shared
    assert len(doc["l2"]) == 9 and doc["l2"][0][0] == ["x"] * 9


def test_an_alias_inside_its_own_node_refused(tmp_path):
    with pytest.raises(ValueError, match="a cycle"):
        yaml(tmp_path, "a: &x [1, *x]\n")


def test_tree_bomb_of_shared_dicts_refused():
    leaf = {"demand": [1]}
    level = {"children": {str(i): leaf for i in range(64)}}
    for _ in range(3):                                   # 64**4 = 16.7 million leaves
        level = {"children": {str(i): level for i in range(64)}}
    with pytest.raises(ValueError, match=r"more than 1,048,576 nodes \(drfbench's bound "
                                         r"MAX_TREE_NODES\)"):
        hdrf.tree({"resources": ["cpu"], **level})


def test_applications_file_refuses_an_unknown_top_level_key(tmp_path):
    path = write(tmp_path, "apps.yaml", "aplications:\n  - {name: a}\n")
    with pytest.raises(ValueError, match=r"apps.yaml: unknown key\(s\) \['aplications'\]"):
        packer_workload.load_applications(path)


# --------------------------------------------------------------------------------------
# CSV: name columns, labels as text, numbers below float64's range
# --------------------------------------------------------------------------------------

@pytest.mark.parametrize("label", _validation.NAME_COLUMNS)
def test_every_table_may_name_its_rows(tmp_path, label):
    table = _inputs.read_csv(write(tmp_path, "d.csv", f"{label},cpu,mem\n007,1,4\n7,3,1\n"),
                             "demands", name_column=True)
    assert table.columns == ("cpu", "mem") and table.labels == ("007", "7")
    assert table.label == label


def test_demands_and_machines_files_with_name_columns(tmp_path):
    d = write(tmp_path, "d.csv", "user,cpu,mem\nalice,1,4\nbob,3,1\n")
    m = write(tmp_path, "m.csv", "machine,mem,cpu\nm1,18,9\n")
    D, C = drf_tasks.read_inputs(d, m)
    assert D.tolist() == [[1, 4], [3, 1]] and C.tolist() == [[9, 18]]
    assert drf.schedule(D, C, "online-drf", tasks=[10, 10]).tasks.tolist() == [3, 2]
    assert drfh_exact.read_inputs(d, m)[1].tolist() == [[9, 18]]
    costs = write(tmp_path, "c.csv", "flow,cpu,link\nf1,1,2\n")
    assert drfq_model.read_inputs(costs).tolist() == [[1, 2]]
    fractions = write(tmp_path, "f.csv", "tenant,cpu,mem\na,0.5,0.25\n")
    assert workloads.read_demands(fractions).toarray().tolist() == [[0.5, 0.25]]


def test_a_dataframe_of_servers_named_by_integers():
    servers = pd.DataFrame({"server": [7, 8], "cpu": [1.0, 2.0]})
    assert drfh.read_servers(servers)[1].tolist() == [[1.0], [2.0]]
    with pytest.raises(ValueError, match=r"server 7 is named twice, at row 0 and row 1"):
        drfh.read_servers(servers.assign(server=[7, 7]))
    with pytest.raises(ValueError, match=r"column 'server' names the rows, got nan at row 1"):
        drfh.read_servers(servers.assign(server=["a", None]))


def test_a_name_column_in_a_dataframe_names_the_rows():
    D = pd.DataFrame({"tenant": ["a", "b"], "cpu": [1, 3], "mem": [4, 1]})
    M = pd.DataFrame({"machine": ["m1"], "mem": [18], "cpu": [9]})
    assert drf.schedule(D, M, "online-drf", tasks=[10, 10]).tasks.tolist() == [3, 2]


@pytest.mark.parametrize("text, match", [
    ("user,cpu\na,1\na,2\n", r"user 'a' is named twice, at line 2 and line 3"),
    ("user,cpu\n,1\n", r"column 'user' names the rows, got '' at line 2"),
])
def test_names_must_be_given_and_distinct(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        _inputs.read_csv(write(tmp_path, "d.csv", text), "demands", name_column=True)


def test_errors_name_the_row_by_its_line_and_name(tmp_path):
    path = write(tmp_path, "m.csv", "machine,cpu,mem\n007,1,1\n7,0,0\n")
    with pytest.raises(ValueError, match=r"m.csv: line 3 \(machine '7'\) has no capacity"):
        _inputs.machines(_inputs.read_csv(path, "machines", name_column=True))


def test_a_headerless_first_row_holding_na_is_data(tmp_path):
    path = write(tmp_path, "d.csv", "NA,0.5\n0.25,0.5\n")
    with pytest.raises(ValueError, match=r"d.csv: column 1 must hold finite numbers >= 0 and "
                                         r"<= 1, got 'NA' at line 1"):
        workloads.read_demands(path)


@pytest.mark.parametrize("cell", ["1e-400", "4e-320", "0.0000e-500", "-1e-400"])
def test_numbers_below_float64s_range_refused(tmp_path, cell):
    path = write(tmp_path, "d.csv", f"cpu,mem\n1,0\n0.5,{cell}\n")
    table = _inputs.read_csv(path, "demands")
    if cell == "0.0000e-500":
        assert table.numbers(table.columns)[1].tolist() == [0.5, 0.0]
        return
    with pytest.raises(ValueError, match=rf"column 'mem' .*{cell}.* at line 3"):
        table.numbers(table.columns)


def test_machines_bound_counts_the_resources(tmp_path):
    header = ",".join(f"r{i}" for i in range(40)) + ",count"
    path = write(tmp_path, "m.csv", header + "\n" + ",".join(["1"] * 40) + ",16777216\n")
    assert path.stat().st_size < 400
    with pytest.raises(ValueError, match=r"16777216 machines x 40 resources is 671,088,640 "
                                         r"capacities, more than 67,108,864"):
        _inputs.machines(_inputs.read_csv(path, "machines"))


# --------------------------------------------------------------------------------------
# The trace: users and jobs are labels
# --------------------------------------------------------------------------------------

TRACE = "user,job,arrival,duration,cpu\n"


def test_numeric_looking_labels_stay_distinct(tmp_path):
    labels = ["007", "7", "1000", "1e3", "18446744073709551614", "18446744073709551615"]
    rows = "".join(f"{u},{u},0,1,0.1\n" for u in labels)
    path = write(tmp_path, "t.csv", TRACE + rows)
    trace = drfh.read_tasks(path, ("cpu",))
    assert trace.names == tuple(labels) and len(set(trace.job.tolist())) == 6
    servers = write(tmp_path, "s.csv", "server,cpu\ns1,1\n")
    result = drfh.simulate(servers, path, sample=None)
    assert result.completion["user"].tolist() == labels
    assert sorted(result.jobs["job"]) == sorted(labels)


def test_a_job_of_several_users_named_by_its_labels(tmp_path):
    path = write(tmp_path, "t.csv", TRACE + "007,j,0,1,0.1\n7,j,0,1,0.1\n")
    with pytest.raises(ValueError, match=r"t.csv: job 'j' has tasks of several users \('007' "
                                         r"at line 2, '7' at line 3\)"):
        drfh.read_tasks(path, ("cpu",))


def test_white_space_around_cells_and_blank_lines_read_as_without(tmp_path):
    plain = TRACE + "u1,j1,0,1,0.1\nu2,j2,0.5,2,0.25\n"
    spaced = ("user, job ,arrival,\tduration,cpu\r\n\r\n u1 ,j1,0, 1\u00a0,0.1\r\n"
              ",,,,\r\nu2,\tj2,0.5,2,0.25 \r\n")
    read = [_inputs.read_csv(write(tmp_path, name, text), "tasks")
            for name, text in (("plain.csv", plain), ("spaced.csv", spaced))]
    assert read[0].data == read[1].data and read[1].lines == (3, 5)


def test_the_trace_reader_types_each_column_once_as_before(tmp_path):
    path = write(tmp_path, "t.csv", "user,job,arrival,duration,cpu,size,note\n"
                 "7,1,0,1,0.5,3,x\n007,2,1.5,,1e-3,4,\n")
    frame, table = drfh_trace.read_frame(path, "tasks", labels=("user", "job"))
    assert frame["user"].tolist() == ["7", "007"] and frame["job"].tolist() == ["1", "2"]
    assert frame["arrival"].dtype == np.float64 and frame["size"].dtype == np.int64
    assert np.isnan(frame["duration"][1]) and frame["cpu"].tolist() == [0.5, 0.001]
    assert frame["note"][0] == "x" and pd.isna(frame["note"][1])
    assert table.numbers(["cpu"]).tolist() == [[0.5], [0.001]]


@pytest.mark.parametrize("seed", range(5))
def test_job_codes_are_the_labels_ranks(seed):
    rng = np.random.default_rng(seed)
    words = np.array(["007", "7", "1e3", "1000", "b", "a", "ä", "Z", "", "10", "9"], dtype=object)
    labels = words[rng.integers(0, len(words), 200)]
    expect = np.unique(labels, return_inverse=True)[1]
    assert np.array_equal(drfh_trace._sorted_codes(labels), expect)
    numbers = rng.integers(-5, 5, 200)
    assert np.array_equal(drfh_trace._sorted_codes(numbers),
                          np.unique(numbers, return_inverse=True)[1])


def test_a_dataframe_mixing_text_and_numbers_refused():
    frame = pd.DataFrame({"user": [1, "a"], "job": [1, 2], "arrival": [0, 0],
                          "duration": [1, 1], "cpu": [0.1, 0.1]})
    with pytest.raises(ValueError, match=r"tasks: column 'user' mixes text and numbers \('a' "
                                         r"at row 1, 1 at row 0\)"):
        drfh.read_tasks(frame, ("cpu",))


def test_hdrf_pool_lacking_a_resource_named_as_written():
    t = {"resources": ["cpu", "mem"], "children": {"a": {"demand": [1, 1]}}}
    with pytest.raises(ValueError, match=r"leaf 'a': a task <1, 1> needs 'mem', of which the "
                                         r"pool has 0"):
        hdrf.allocate(t, [128, 0])


def apps_file(tmp_path, name):
    return write(tmp_path, "apps.yaml", "applications:\n  - name: x\n    duration: 1\n"
                 f"    nodes:\n      - {{name: {name}, demand: {{cpu: 1}}}}\n"
                 "      - {name: b, demand: {cpu: 1}}\n"
                 f"    edges:\n      - {{from: b, to: {name}}}\n")


@pytest.mark.parametrize("name", ["007", "true", "null", "1e3"])
def test_an_application_name_read_as_a_number_says_to_quote_it(tmp_path, name):
    with pytest.raises(ValueError, match=r"apps.yaml: application 'x': node 0 .* \(a name the "
                                         r"file's syntax reads as a number, boolean or null: "
                                         r"quote it\)"):
        packer_workload.load_applications(apps_file(tmp_path, name))
    apps = packer_workload.load_applications(apps_file(tmp_path, f"'{name}'"))
    assert apps[0].nodes[0] == name and apps[0].edges.tolist() == [[1, 0]]
