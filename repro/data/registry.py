"""What each dataset is: its files, their reference checksums, mirror folder names and official URLs.

Checksums of MNIST / Fashion-MNIST are SHA-256 of the *decompressed* IDX files (mirror copies are
recompressed, so the ``.gz`` bytes differ between sources while the content is identical; see the
shared datasets README). CIFAR-10 is checked by the MD5 of the official archive, before unpickling.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace

from repro.errors import ConfigError

IDX_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


@dataclass(frozen=True)
class DatasetSpec:
    """Static description of one dataset.

    ``files`` maps a file name (as stored in the cache) to its reference checksum ``(algorithm, hex)``;
    ``mirror_dirs`` are folder names tried under ``$REPRO_DATA_MIRROR``; ``system_dirs`` absolute
    folders of system packages; ``urls`` base URLs tried in order for the download.
    """

    name: str
    kind: str  # "idx" | "cifar" | "user"
    files: dict = field(default_factory=dict)
    mirror_dirs: tuple = ()
    system_dirs: tuple = ()
    urls: tuple = ()
    description: str = ""
    homepage: str = ""
    #: file -> where its expected checksum comes from: "reference" or the variable that set it (an accepted copy)
    checksum_source: dict = field(default_factory=dict)


DATASETS: dict[str, DatasetSpec] = {
    "mnist": DatasetSpec(
        name="mnist",
        kind="idx",
        files={
            "train-images-idx3-ubyte": ("sha256", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"),
            "train-labels-idx1-ubyte": ("sha256", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"),
            "t10k-images-idx3-ubyte": ("sha256", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"),
            "t10k-labels-idx1-ubyte": ("sha256", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"),
        },
        mirror_dirs=("mnist", "MNIST", "MNIST/raw"),
        system_dirs=("/usr/share/datasets/mnist",),
        # torchvision.datasets.MNIST.mirrors
        urls=("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"),
        description="MNIST handwritten digits (LeCun, Cortes, Burges)",
        homepage="http://yann.lecun.com/exdb/mnist/",
    ),
    "fashion_mnist": DatasetSpec(
        name="fashion_mnist",
        kind="idx",
        files={
            "train-images-idx3-ubyte": ("sha256", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
            "train-labels-idx1-ubyte": ("sha256", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
            "t10k-images-idx3-ubyte": ("sha256", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
            "t10k-labels-idx1-ubyte": ("sha256", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"),
        },
        mirror_dirs=("fashion-mnist", "fashion_mnist", "FashionMNIST/raw"),
        system_dirs=("/usr/share/datasets/fashion-mnist",),
        # torchvision.datasets.FashionMNIST.mirrors
        urls=("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",),
        description="Fashion-MNIST (Zalando Research)",
        homepage="https://github.com/zalandoresearch/fashion-mnist",
    ),
    "cifar10": DatasetSpec(
        name="cifar10",
        kind="cifar",
        files={"cifar-10-python.tar.gz": ("md5", "c58f30108f718f92721af3b95e74349a")},
        mirror_dirs=("cifar10", "cifar-10", "CIFAR10", ""),
        system_dirs=("/usr/share/datasets/cifar10", "/usr/share/datasets/cifar-10"),
        # torchvision.datasets.CIFAR10.url
        urls=("https://www.cs.toronto.edu/~kriz/",),
        description="CIFAR-10 (Krizhevsky, 2009), python version",
        homepage="https://www.cs.toronto.edu/~kriz/cifar.html",
    ),
    "femnist": DatasetSpec(
        name="femnist",
        kind="user",
        mirror_dirs=("femnist", "emnist"),
        description="FEMNIST / EMNIST from a user-given path (LEAF/FedProx JSON or EMNIST byclass IDX)",
        homepage="https://leaf.cmu.edu/ , https://www.nist.gov/itl/products-and-services/emnist-dataset",
    ),
}

NAMES = tuple(DATASETS)
ALIASES = {"fashion-mnist": "fashion_mnist", "fmnist": "fashion_mnist", "cifar-10": "cifar10", "emnist": "femnist"}


def get_spec(name: str) -> DatasetSpec:
    """The spec of dataset ``name`` (aliases like ``fashion-mnist`` accepted), with the user's overrides of its
    download source and checksums applied (:func:`with_overrides`); ``ValueError`` otherwise."""
    key = ALIASES.get(name, name)
    if key not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(NAMES)}")
    return with_overrides(DATASETS[key])


HEX_DIGITS = {"sha256": 64, "md5": 32}


def override_vars(name: str) -> dict[str, str]:
    """The environment variables that override dataset ``name``'s source: ``url``, ``sha256``, ``md5``."""
    up = name.upper()
    return {"url": f"REPRO_{up}_URL", "sha256": f"REPRO_{up}_SHA256", "md5": f"REPRO_{up}_MD5"}


def with_overrides(spec: DatasetSpec) -> DatasetSpec:
    """``spec`` with the user's overrides (README, "Data"):

    * ``REPRO_<NAME>_URL`` (``REPRO_CIFAR10_URL``): a mirror, tried before the official URLs; a folder URL
      holding the official file names, or (a one-file dataset) the file's own URL;
    * ``REPRO_<NAME>_SHA256`` or ``REPRO_<NAME>_MD5``: accept a copy whose checksum differs from the reference
      one (a legitimately repacked archive): the hex digest of the one file (CIFAR-10: of the ``.tar.gz``), or
      ``FILE=HEX`` pairs separated by commas (MNIST: of the *decompressed* IDX files). The accepted checksum is
      what every copy is then verified against, what the dataset's content id hashes (so the runs that read it
      rerun) and what the runs record.

    A malformed value raises :class:`~repro.errors.ConfigError` naming the variable, the value and what is allowed.
    """
    if not spec.files:
        return spec
    var = override_vars(spec.name)
    files, source = dict(spec.files), {f: "reference" for f in spec.files}
    for alg in ("sha256", "md5"):
        value = os.environ.get(var[alg], "").strip().lower()
        if not value:
            continue
        pairs = [p.strip() for p in value.split(",") if p.strip()]
        if len(pairs) == 1 and "=" not in pairs[0] and len(files) == 1:
            pairs = [f"{next(iter(files))}={pairs[0]}"]
        for pair in pairs:
            file, _, hexd = pair.partition("=")
            file = file.strip()
            if file.endswith(".gz") and spec.kind == "idx":
                file = file[:-3]
            if file not in files or not re.fullmatch(f"[0-9a-f]{{{HEX_DIGITS[alg]}}}", hexd.strip()):
                raise ConfigError(f"{var[alg]}={os.environ[var[alg]]!r} is not allowed: expected "
                                 + (f"the {alg} hex digest of {next(iter(files))} ({HEX_DIGITS[alg]} hex digits), or "
                                    if len(files) == 1 else "")
                                 + f"FILE={alg.upper()}HEX pairs separated by commas, FILE one of {', '.join(files)}")
            files[file], source[file] = (alg, hexd.strip()), var[alg]
    url = os.environ.get(var["url"], "").strip()
    if url and not re.match(r"^(https?|file)://", url):
        raise ConfigError(f"{var['url']}={url!r} is not allowed: expected an http://, https:// or file:// URL of a mirror")
    if not url and source == {f: "reference" for f in spec.files}:
        return spec
    return replace(spec, files=files, urls=((url,) if url else ()) + spec.urls, checksum_source=source)


def accepted(spec: DatasetSpec) -> dict[str, str]:
    """The files of ``spec`` whose expected checksum the user accepted, and the variable that set it."""
    return {f: s for f, s in spec.checksum_source.items() if s != "reference"}
