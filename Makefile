# The two commands a new user needs: `make demo` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test test-full lint train evaluate bench clean system-packages

$(STAMP): pyproject.toml
	@scripts/ensure-venv-support.sh $(PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $@

# The dashboard on the sample race film: open the link it prints; Ctrl-C stops it.
demo: $(STAMP)
	$(BIN)/tableref serve samples/tempus-race.mp4 --game tempus

# Debian packages: the font families that tests, training and evaluation render cards in (without them a fresh
# machine renders other cards, and the figures differ), and chromium for the dashboard's page tests.
system-packages:
	@scripts/system-packages.sh

test: $(STAMP) system-packages
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest

# Everything, including the long accuracy runs over the held-out render set.
test-full: $(STAMP) system-packages
	$(BIN)/pytest -m ''

lint: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Reproduces the committed ONNX models on the CPU (needs the `train` extra: torch, onnx).
train: $(STAMP) system-packages
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m models.train_card_locator
	$(BIN)/python -m models.train_card_locator --scenes 1200 --pattern-scenes 600 --free-scenes 400 --mat-scenes 300 \
		--streaked-scenes 600 --portrait-scenes 600 --start models/card_locate.onnx --steps 6000 --lr 5e-4 --seed 9 \
		--checkpoint data/card_locate_portrait.pt --out models/card_locate_portrait.onnx
	$(BIN)/python -m models.train_card_corners
	$(BIN)/python -m models.train_cards
	$(BIN)/python -m models.finetune_cards
	$(BIN)/python -m models.finetune_cards --inked-scenes 1000
	$(BIN)/python -m models.finetune_cards --inked-scenes 1000 --blurred-scenes 1500 --threads 2 \
		--out models/digit_cards_blurred.onnx
	$(BIN)/python -m models.train_card_locator --start models/card_locate.onnx --steps 4000 --lr 5e-4 --seed 13 \
		--exposure-share 0.3 --checkpoint data/card_locate-exposed.pt
	$(BIN)/python -m models.train_card_locator --touching-scenes 1200 --start models/card_locate.onnx --steps 2000 \
		--lr 3e-4 --seed 16 --exposure-share 0.3 --checkpoint data/card_locate-touching.pt
	$(BIN)/python -m models.train_card_corners --touching-scenes 1200 --start models/card_corners.onnx --epochs 3 \
		--max-lr 3e-4 --seed 2
	$(BIN)/python -m models.train_card_locator --scenes 1200 --pattern-scenes 600 --free-scenes 400 --mat-scenes 300 \
		--streaked-scenes 600 --touching-scenes 600 --inked-scenes 1200 --start models/card_locate.onnx --steps 2000 \
		--lr 3e-4 --seed 17 --exposure-share 0.3 --checkpoint data/card_locate-inked.pt
	$(BIN)/python -m models.train_card_corners --touching-scenes 1200 --inked-scenes 800 --start models/card_corners.onnx \
		--epochs 2 --max-lr 3e-4 --seed 3
	$(BIN)/python -m models.finetune_cards --scenes 1500 --located-scenes 600 --free-scenes 800 --streaked-scenes 800 \
		--inked-scenes 400 --wild-scenes 1500 --max-lr 5e-4 --seed 7 --threads 2
	$(BIN)/python -m models.train_dominoes
	$(BIN)/python -m models.finetune_dominoes
	$(BIN)/python -m models.train_dominoes --skip-locator
	$(BIN)/python -m models.finetune_dominoes --start data/dominoes_locate-patterns.pt \
		--checkpoint data/dominoes_locate-longer.pt --steps 4000 --seed 3
	$(BIN)/python -m models.train_dominoes --skip-locator --pips-start data/dominoes_pips.pt \
		--pip-epochs 2 --pip-lr 5e-4 --free-scenes 1000 --seed 1
	$(BIN)/python -m models.finetune_pips
	$(BIN)/python -m models.finetune_pips --dotted-scenes 800 --ridged-scenes 800 --pattern-scenes 0 \
		--varied-scenes 0 --proposal-scenes 0 --blur-share 0.15 \
		--start models/dominoes_pips.onnx --out models/dominoes_pips.onnx
	$(BIN)/python -m models.finetune_pips --dotted-scenes 800 --ridged-scenes 800 \
		--start models/dominoes_pips_blurred.onnx --out models/dominoes_pips_blurred.onnx
	$(BIN)/python -m models.finetune_pips --dotted-scenes 800 --ridged-scenes 800 --noted-scenes 1000 \
		--pattern-scenes 0 --varied-scenes 0 --proposal-scenes 0 --blur-share 0.15 \
		--start models/dominoes_pips.onnx --out models/dominoes_pips.onnx
	$(BIN)/python -m models.finetune_pips --dotted-scenes 800 --ridged-scenes 800 --noted-scenes 1000 \
		--start models/dominoes_pips_blurred.onnx --out models/dominoes_pips_blurred.onnx
	$(BIN)/python -m models.finetune_dominoes --start models/dominoes_locate.onnx \
		--out models/dominoes_locate_blurred.onnx --checkpoint data/dominoes_locate-blurred.pt \
		--steps 4000 --lr 1e-3 --blur-share 0.3 --seed 5
	$(BIN)/python -m models.train_tile_corners --threads 2
	$(BIN)/python -m models.train_sticks
	$(BIN)/python -m models.train_sticks --scenes 0 --pattern-scenes 0 --shaped-scenes 2400 \
		--start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 7 --checkpoint data/sticks_locate-shaped.pt
	$(BIN)/python -m models.train_sticks --scenes 1200 --pattern-scenes 600 --shaped-scenes 2400 \
		--start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 8 --blur-share 0.3 \
		--checkpoint data/sticks_locate-blurred.pt --out models/sticks_locate_blurred.onnx
	$(BIN)/python -m models.train_sticks --scenes 0 --pattern-scenes 0 --close-heap-scenes 1500 \
		--start models/sticks_locate.onnx --steps 2500 --lr 5e-4 --seed 5 --mirror --threads 2 \
		--checkpoint data/sticks_locate-heaps.pt --out models/sticks_locate_heaps.onnx
	$(BIN)/python -m models.train_sticks --scenes 1200 --pattern-scenes 600 --shaped-scenes 2400 --mikado-scenes 1200 \
		--start models/sticks_locate.onnx --steps 4000 --lr 5e-4 --seed 10 --checkpoint data/sticks_locate-mikado.pt
	$(BIN)/python -m models.train_stick_pairs
	$(BIN)/python -m models.quantize
	$(BIN)/python -m models.train_card_backs
	$(BIN)/python -m models.train_card_index

evaluate: $(STAMP) system-packages
	$(BIN)/tableref evaluate cards
	$(BIN)/tableref evaluate dominoes
	$(BIN)/tableref evaluate sticks

bench: $(STAMP)
	$(BIN)/tableref bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
