# DC-DRF family: Figure 2's data (python -m drfbench.dcdrf azure): per 5-minute interval of
# the Azure CPU sample vendored in data/azure/, the fraction of VMs becoming active (the
# paper's rule) and idle (a proxy: the sample has no per-interval minimum), and their 95th
# percentiles per window of 350 intervals. Data, not timings: the same rows on any machine.
#
# Config (key `dcdrf.azure`): window (intervals per window).

AZURE = config["dcdrf"]["azure"]
TARGETS += expand("results/{name}/dcdrf/azure_activity.csv", name=NAME)


rule dcdrf_azure:
    input:
        cpu_max=os.path.normpath(f"{CHECKOUT}/data/azure/azure_v1_vm_cpu_max_5min_100vms.csv.gz"),
        cpu_avg=os.path.normpath(f"{CHECKOUT}/data/azure/azure_v1_vm_cpu_avg_5min_100vms.csv.gz"),
    output:
        report("results/{name}/dcdrf/azure_activity.csv", category="DC-DRF"),
    conda:
        CONDA_ENV
    log:
        "results/{name}/logs/dcdrf/azure_activity.log",
    params:
        python=PYTHON,
        data=lambda w, input: os.path.dirname(os.path.dirname(input.cpu_max)),  # data/
        window=AZURE["window"],
    threads: 1
    shell:
        "OMP_NUM_THREADS=1 {params.python} -m drfbench.dcdrf azure --data {params.data} "
        "--out {output} --window {params.window} > {log} 2>&1"
