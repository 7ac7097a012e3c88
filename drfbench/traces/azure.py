"""Azure's VM traces to the generic trace format: `azure-vm`.

Source (Azure/AzurePublicDataset on GitHub): AzurePublicDatasetV1.md and
AzurePublicDatasetV2.md, the VM table vmtable.csv.gz, headerless CSV: vmid,
subscriptionid, deploymentid, vmcreated, vmdeleted, maxcpu, avgcpu, p95maxcpu,
vmcategory, vmcorecountbucket, vmmemorybucket. Times in seconds from the trace's start,
at 5-minute granularity; the core count and the memory (GB) are buckets ("2", "4",
"8", "24", ">24"; "2", "4", "8", "32", "64", ">64"). A VM is a task of its subscription
(the user) and its deployment (the job), arriving at vmcreated and running until
vmdeleted, demanding its buckets' sizes; an open bucket (">24") is read as its bound, a
lower bound of the VM's size. The dataset has no machines table: the servers file is
`count` servers of one given size (`server`, e.g. {"cpu": 64, "memory": 512}).
"""
RESOURCES = ("cpu", "memory")
RESOLUTION = 300.0               # seconds: the tables record times every 5 minutes
VMTABLE = ("vmid", "subscriptionid", "deploymentid", "vmcreated", "vmdeleted", "maxcpu",
           "avgcpu", "p95maxcpu", "vmcategory", "vmcorecountbucket", "vmmemorybucket")


def _bucket(row, j):
    """A bucket cell as a number: "8" is 8, the open bucket ">24" its bound, 24."""
    return row.number(j, text=row.cells[j].removeprefix(">"))


def tasks(reader, sink, paths, jobs=()):
    """Feed `sink` the VMs of the vmtable files `paths`.

    Parameters
    ----------
    reader : Reader
        Reads the tables row by row, reporting progress.
    sink : Sink
        Takes each task and counts what is left out.
    paths : list of str
        The vmtable tables.
    jobs : list of str
        Unused: the format has no job table.
    """
    for row in reader.csv(paths, "vmtable", VMTABLE):
        created, deleted = row.number(3), row.number(4)
        sink.task(row.text(1), row.text(2), created, created, deleted,
                  (_bucket(row, 9), _bucket(row, 10)))
