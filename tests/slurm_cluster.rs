//! The Slurm cluster the Slurm tests run on (`.ci/slurm up`): a job array's tasks all run and
//! each sees its own task id. Skipped, saying why, when no cluster answers.

mod common;

use std::time::Duration;

use common::{scratch, slurm};

#[test]
fn array_tasks_each_write_their_id() {
    if !slurm::skip_unless_available("array_tasks_each_write_their_id") {
        return;
    }
    let dir = scratch("slurm", "array");
    let d = dir.to_str().unwrap();
    let script = format!("echo $SLURM_ARRAY_TASK_ID > {d}/out-$SLURM_ARRAY_TASK_ID");
    let log = format!("--output={d}/log-%a.txt");
    let submitted = slurm::run(
        "sbatch",
        &[
            "--parsable",
            "--array=0-3",
            &log,
            "--chdir",
            d,
            "--wrap",
            &script,
        ],
    )
    .unwrap();
    // --parsable prints JOBID or JOBID;CLUSTER.
    let job = submitted.trim().split(';').next().unwrap().to_string();
    assert!(job.parse::<u64>().is_ok(), "sbatch printed {submitted:?}");
    slurm::wait_gone(&job, Duration::from_secs(60)).unwrap();
    for task in 0..4 {
        let path = dir.join(format!("out-{task}"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (job {job})", path.display()));
        assert_eq!(text.trim(), task.to_string(), "{}", path.display());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
