"""The fuzz suite for `drfbench convert` (drfbench.traces): every public format's files,
valid and small, mutated as tests/test_fuzz_cli.py mutates `drfbench run`'s (a token
replaced by an awkward value, a line dropped or repeated, the file cut short, a
byte-order mark, Latin-1, random bytes, an empty file, a folder). Each conversion must
exit with status 0 and write both files, or with status 2, one line on stderr naming the
problem, and no new file."""
import gzip
import json

import hypothesis.strategies as st

import fuzz
from test_fuzz_cli import AWKWARD, check_refusal, mutated, run_command


def _json_lines(*records):
    return "".join(json.dumps(r) + "\n" for r in records)


# Per format: its files (name -> valid text; a name ending in .gz is written gzipped) and
# the arguments naming them.
FORMATS = {
    "google-2011": ({"te.csv.gz": "0,,6251812952,0,,0,u+1=,2,0,0.1,0.2,0,\n"
                                  "5000000,,6251812952,0,,1,u+1=,2,0,,,,\n"
                                  "9000000,,6251812952,0,,4,u+1=,2,0,,,,\n",
                     "me.csv": "0,m1,0,p,0.5,0.25\n0,m2,0,p,1,1\n"},
                    ["te.csv.gz", "--machines", "me.csv"]),
    "google-2019": ({"ie.json": _json_lines(
                        {"time": "0", "type": "SUBMIT", "collection_id": "7", "instance_index": 0,
                         "resource_request": {"cpus": 0.1, "memory": 0.1}},
                        {"time": "10", "type": 3, "collection_id": "7", "instance_index": 0},
                        {"time": "2000000", "type": "FINISH", "collection_id": "7",
                         "instance_index": 0}),
                     "ce.json": _json_lines({"collection_id": "7", "user": "u"}),
                     "me.json": _json_lines({"machine_id": "1", "type": "ADD",
                                             "capacity": {"cpus": 1, "memory": 1}})},
                    ["ie.json", "--jobs", "ce.json", "--machines", "me.json"]),
    "alibaba-2018": ({"bt.csv": "M1,2,j_3,1,Terminated,157297,157300,100,0.39\n"
                                "R2_1,1,j_3,1,Terminated,157290,157299,50,0.2\n",
                      "mm.csv": "m_1,0,1,a,96,100,USING\nm_2,0,2,b,64,50,USING\n"},
                     ["bt.csv", "--machines", "mm.csv"]),
    "alibaba-gpu-2020": ({"pt.csv": "4b3f,worker,2.0,Terminated,4550900.0,4551400.0,600.0,"
                                    "29.3,50.0,MISC\n",
                          "pj.csv": "4b3f,8cb3,5854,Terminated,4550879.0,4551416.0\n",
                          "ms.csv": "82e5,T4,96,512,2\n"},
                         ["pt.csv", "--jobs", "pj.csv", "--machines", "ms.csv"]),
    "alibaba-gpu-2023": ({"pods.csv": "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,"
                                      "pod_phase,creation_time,deletion_time,scheduled_time\n"
                                      "p1,4000,15258,1,220,,BE,Running,9679175,9973826,9679175\n",
                          "nodes.csv": "sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,G3\n"},
                         ["pods.csv", "--machines", "nodes.csv"]),
    "azure-vm": ({"vm.csv.gz": "v1,s1,d1,300,900,90,10,80,Interactive,2,4\n"
                               "v2,s2,d2,600,1200,90,10,80,Unknown,>24,>64\n"},
                 ["vm.csv.gz", "--server", "cpu=64,memory=512", "--count", "2"]),
}


def _bytes(name, data):
    return gzip.compress(data, mtime=0) if name.endswith(".gz") else data


@fuzz.cases(format=st.sampled_from(sorted(FORMATS)), file=st.integers(0, 2),
            how=st.sampled_from(["token", "token", "token", "drop", "repeat", "cut", "bom",
                                 "latin1", "bytes", "empty", "folder"]),
            where=st.floats(0, 1), value=st.one_of(st.sampled_from(AWKWARD), st.text(max_size=8)))
def test_convert_on_a_mutated_file(format, file, how, where, value):
    valid, args = FORMATS[format]
    names = list(valid)
    name = names[file % len(names)]
    files = {n: _bytes(n, text.encode()) for n, text in valid.items()}
    files[name] = None if how == "folder" else _bytes(name, mutated(valid[name], how, where, value))
    argv = ["convert", format, *args, "--out-servers", "s.csv", "--out-tasks", "t.csv",
            "--quiet"]
    outcome = fuzz.call(run_command, "drfbench.cli", argv, files)
    assert not outcome.refused, f"{argv}: {outcome.error!r} escaped the command's boundary"
    status, err, new = outcome.value
    if status == 0:
        assert new == ["s.csv", "t.csv"] and err == "", (files[name], err)
        return
    line = check_refusal(outcome, argv)
    assert name in line or "no task is left" in line or "no server" in line, (files[name], line)


def test_every_format_is_fuzzed():
    from drfbench import traces
    assert sorted(FORMATS) == sorted(traces.FORMATS)
