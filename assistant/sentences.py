"""Every sentence the assistant says to an owner, in one place, marked for translation.

Each is a ``gettext_noop`` string (so ``manage.py makemessages`` finds it) with ``{named}`` fields;
``say`` gives it in the active language with its fields filled. What a sentence says with its
numbers is chosen in code from tool results (``assistant.replies``, the modes, the pipeline); this
module holds only the words. Change a wording here, and only on purpose: the benchmarks and the
tests read replies.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop


def say(sentence: str, /, **fields: object) -> str:
    """``sentence`` (one of this module's) in the active language, its ``{fields}`` filled."""
    text = gettext(sentence)
    return text.format(**fields) if fields else text


# --- The turn: failures, refusals, the guard --------------------------------------------------
TURN_FAILED = gettext_noop("Sorry, something went wrong on my side. Nothing was changed; please try again.")
TURN_FAILED_AFTER_CHANGES = gettext_noop(
    "Sorry, something went wrong on my side after a change went through ({changes}). "
    "That change stands; please check it before you ask again.")
OUTPUT_BLOCKED = gettext_noop("I can't help with that. For anything about health or medicine, please ask a doctor.")
REFUSAL = gettext_noop(
    "Sorry, I can't help with that. I can help with your store's stock, sales, orders and everyday questions.")
SELF_HARM_REFUSAL = gettext_noop(
    "I can't help with that. If you're thinking about hurting yourself, please reach out now: "
    "call your local emergency number or a crisis line, or talk to someone you trust.")
GUARD_UNAVAILABLE = gettext_noop(
    "My safety check isn't working right now, so I can't do that. Nothing was changed; please try again soon.")
DATA_BLOCKED = gettext_noop(
    "I stopped: some of the store's data reads like instructions to me, not shop data. "
    "Nothing was changed; please check the product names and notes.")
DATA_BLOCKED_AFTER_CHANGES = gettext_noop(
    "I stopped: some of the store's data reads like instructions to me, not shop data. "
    "A change made before that stands ({changes}); please check it, and the product names and notes.")
STORE_FACTS_NEUTRAL = gettext_noop("I can check the books for that: which product?")
MODEL_UNAVAILABLE = gettext_noop(
    "Sorry, I can't think right now: the assistant's model is not available. Nothing was changed.")
MODEL_UNAVAILABLE_AFTER_CHANGES = gettext_noop(
    "Sorry, the assistant's model stopped answering after a change went through ({changes}). "
    "That change stands; please check it before you ask again.")
CLARIFY = gettext_noop("Sorry, I didn't catch that. Could you say it another way?")
CLARIFY_PRODUCT = gettext_noop("Which product do you mean?")
TOO_MANY_STEPS = gettext_noop("Sorry, I couldn't finish that. Could you ask it another way?")
NOTHING_CHANGED_BECAUSE = gettext_noop("I didn't change anything: {reason}")

# --- Alexa (alexa.views) ----------------------------------------------------------------------
ALEXA_LINK = gettext_noop(
    "To talk to your store, please link your Shelfwise store account in the Alexa app. I've sent a card there.")
ALEXA_HELP = gettext_noop(
    "You can ask me where something is, what's running low, how today's sales look, or to reorder. "
    "For example, say: tell me where the basmati rice is.")
ALEXA_PROMPT = gettext_noop("What would you like to know about your store?")
ALEXA_FALLBACK = gettext_noop(
    "Sorry, I didn't catch that. Try starting with: tell me, for example: tell me what's running low.")
ALEXA_GOODBYE = gettext_noop("Goodbye.")
ALEXA_CONFIRM_PROMPT = gettext_noop("Should I place that order? Say yes or no.")
ALEXA_STILL_WORKING = gettext_noop("That's taking me longer than usual. Ask me again in a moment.")
ALEXA_SLOW_DOWN = gettext_noop("You're asking faster than I can keep up. Try again in a minute.")
ALEXA_READY = gettext_noop("Hi, {store} is ready. {prompt}")

# --- Yes and no to the draft on offer ---------------------------------------------------------
ASK_AGAIN = gettext_noop("Shall I place it? Say yes or no.")
NO_ORDER_WAITING = gettext_noop("There's no order waiting for a yes right now.")
NO_PROBLEM = gettext_noop("Okay, no problem.")
DRAFT_DROPPED = gettext_noop("Okay, I've dropped that draft. Nothing was ordered.")
DRAFT_IN_APPROVALS = gettext_noop(
    "That draft is waiting in your approvals. Ask me to reorder again, or approve it there.")
OWNER_ONLY_CONFIRMS = gettext_noop(
    "Only the store's owner can place orders. The draft is waiting in approvals for them.")
COULD_NOT_PLACE = gettext_noop("I couldn't place it: {reason}")
DRAFT_GONE = gettext_noop("the draft is gone")

# --- General answers (assistant.general) ------------------------------------------------------
GENERAL_FALLBACK = gettext_noop(
    "Sorry, I can't answer that right now. I can help with your store's stock, sales and orders.")
YOU_ARE_WELCOME = gettext_noop("You're welcome! Anything else I can look up?")
GLAD_TO_HELP = gettext_noop("Glad to help. What else can I do for you?")
GOOD_MORNING = gettext_noop("Good morning!")
GOOD_AFTERNOON = gettext_noop("Good afternoon!")
GOOD_EVENING = gettext_noop("Good evening!")
HELLO = gettext_noop("Hello!")
WHAT_CAN_I_DO = gettext_noop("What can I help you with?")

# --- Products (assistant.replies) -------------------------------------------------------------
PRODUCT_WHERE = gettext_noop("{name} is in {location}{note}.")
PRODUCT_COUNT = gettext_noop("We have {stock} {unit} of {name}.")
PRODUCT_OUT = gettext_noop("{name} is out of stock.")
PRODUCT_LOW = gettext_noop(" That is at or below its reorder point of {reorder_point}.")
PRODUCT_PRICE = gettext_noop("{name} is {price} per {unit}.")
PRODUCT_NOT_AVAILABLE = gettext_noop("No, {name} is out of stock right now.")
PRODUCT_AVAILABLE = gettext_noop("Yes, we have {name}: {stock} {unit}, in {location}.")
NOT_CARRIED = gettext_noop("Sorry, we don't carry {words}.")
GROUP_EMPTY = gettext_noop("We have nothing in {group} right now.")
NO_PRODUCTS = gettext_noop("The store has no products yet.")
GROUP_LIST = gettext_noop("In {group} we have {count}: {names}.")
PRODUCT_LIST = gettext_noop("We carry {count} products: {names}.")
ITEM_LEFT = gettext_noop("{name} ({stock} left)")
NOTHING_LOW_NOW = gettext_noop("Nothing is at or below its reorder point right now.")
ONE_LOW = gettext_noop("{count} item is at or below the reorder point: {items}.")
MANY_LOW = gettext_noop("{count} items are at or below the reorder point: {items}.")
AND = gettext_noop("and")
OR = gettext_noop("or")

# --- Today's sales and the day's books --------------------------------------------------------
SALES_TODAY = gettext_noop("Today so far: {receipts} receipts, {revenue} in sales, {units} items sold.")
TOP_SELLERS = gettext_noop(" Top sellers: {names}.")
BOOKS_CLOSED = gettext_noop("I closed the day's books: {receipts} receipts and {revenue} in sales. ")
ONE_NEEDS_REORDER = gettext_noop("{count} item needs reordering: {items}.")
MANY_NEED_REORDER = gettext_noop("{count} items need reordering: {items}.")
NOTHING_LOW = gettext_noop("Nothing is at or below its reorder point.")

# --- Alerts -----------------------------------------------------------------------------------
ALERT_DOWN_TO = gettext_noop("{product} is down to {stock}.")
AN_ALERT = gettext_noop("An alert.")
NO_OPEN_ALERTS = gettext_noop("No open alerts")
NO_ALERT_HOLDS_ONE = gettext_noop(
    "No open alert holds now: {count} was restocked since (say \"clear the alerts\" to put it away)")
NO_ALERT_HOLDS_MANY = gettext_noop(
    "No open alert holds now: {count} were restocked since (say \"clear the alerts\" to put them away)")
ALERTS_BUT_LOW = gettext_noop("{head}. But {low}")
ALERTS_AND_NOTHING_LOW = gettext_noop("{head}, and nothing is at or below its reorder point.")
ONE_OPEN_ALERT = gettext_noop("One open alert: ")
OPEN_ALERTS = gettext_noop("{count} open alerts: ")
MORE_ALERTS = gettext_noop(" And {count} more on the alerts page.")
ALERT_PUT_AWAY = gettext_noop("Done: the {name} alert is put away.")
ONE_ALERT_PUT_AWAY = gettext_noop("Done: {count} alert put away.")
ALERTS_PUT_AWAY = gettext_noop("Done: {count} alerts put away.")
NO_ALERT_ABOUT = gettext_noop("There is no open alert about {names}, so nothing changed.")
NO_ALERTS_TO_PUT_AWAY = gettext_noop("There are no open alerts to put away.")

# --- Drafts, orders, counts, reports ----------------------------------------------------------
DRAFT_OFFER = gettext_noop(
    "I've drafted an order for {lines}, about {total}{supplier}. {why}"
    "Shall I place it? Say yes to order, or no to drop it.")
DRAFT_FROM = gettext_noop(" from {supplier}")
ORDER_PLACED = gettext_noop("Done: the order for {lines} is placed{supplier}, {total}.")
ORDER_WITH = gettext_noop(" with {supplier}")
NOTHING_TO_REORDER = gettext_noop("Nothing is low right now, so there is nothing to reorder.")
COUNT_UPDATED = gettext_noop("Done. {item} is now set to {stock}; it was {previous}.")
WHAT_NEW_COUNT = gettext_noop("What is the new count?")
WHICH_NUMBER_IS_COUNT = gettext_noop("Which number is the new count?")
REPORT_SENT = gettext_noop("The {report} report is on its way to {to}.")

# --- Media ------------------------------------------------------------------------------------
HERE_IS = gettext_noop("Here is the {title}.")
HERES_A_GUIDE = gettext_noop("Here's a guide: {title}.")

# --- Sales over periods -----------------------------------------------------------------------
NO_SALES_RECORDED = gettext_noop("no sales recorded")
ONE_RECEIPT = gettext_noop("{count} receipt")
RECEIPTS = gettext_noop("{count} receipts")
ONE_ITEM_SOLD = gettext_noop("{count} item sold")
ITEMS_SOLD = gettext_noop("{count} items sold")
TOTALS = gettext_noop("{receipts}, {revenue} in sales, {sold}")
AVERAGE_BASKET = gettext_noop(", average basket {amount}")
CATEGORY_ONE_SOLD = gettext_noop("{name} sold {units} item for {revenue}")
CATEGORY_SOLD = gettext_noop("{name} sold {units} items for {revenue}")
NONE_SOLD = gettext_noop("no {name} sold")
WE_SOLD = gettext_noop("we sold {units} {name} for {revenue}")
NOTHING_SOLD = gettext_noop("nothing sold")
BY_CATEGORY = gettext_noop("by category: {rows}")
NONE = gettext_noop("none")
SLOWEST = gettext_noop("slowest: {rows}")
BEST_SELLERS = gettext_noop("best sellers: {rows}")
THE_SAME = gettext_noop("the same")
UP = gettext_noop("up {amount}{percent}")
DOWN = gettext_noop("down {amount}{percent}")
THEN_MOVED = gettext_noop("{then}: {said}, so {moved}.")
THEN_SAME = gettext_noop("{then}: {said}, the same.")
FOCUS_THEN = gettext_noop("{units} {name} for {revenue}")
NO_FOCUS = gettext_noop("no {name}")
THEN_NO_SALES = gettext_noop("{then}: no sales recorded.")
THEN_BASKET = gettext_noop("{then}: {amount} over {receipts} receipts, {direction}.")
THEN_PER_DAY = gettext_noop("{then}: {theirs} a day against {ours} a day, {direction}.")
THEN_TOTALS = gettext_noop("{then}: {totals}. Sales are {direction}.")
PERIOD_FOCUS = gettext_noop("{period}, {focus}.")
PERIOD_ROWS = gettext_noop("{period}, {rows}.")
PERIOD_BASKET = gettext_noop("{period}, the average basket was {amount} over {receipts} receipts.")
PERIOD_TOTALS = gettext_noop("{period}: {totals}.")

# --- What the owner's words did not allow (assistant.policy, assistant.tool_args) -------------
NO_COUNT_NUMBER = gettext_noop("You didn't tell me a new count with a number, so no count was changed.")
COUNT_NOT_SAID = gettext_noop("You didn't say {stock}; I can only set a count to a number you said.")
ONLY_YOU_CONFIRM = gettext_noop("Only you can confirm an order, by saying yes to the draft; nothing was ordered.")
NO_ORDER_ASKED = gettext_noop("You didn't ask me to order or restock, so I made no draft.")
NO_REPORT_ASKED = gettext_noop("You didn't ask for a report by email, so nothing was sent.")
ALERT_NOT_DEALT = gettext_noop("You didn't say you had seen or dealt with the alert, so it stays open.")
GONE_NO_COUNT = gettext_noop("{name} is not in the books any more, so no count was changed.")
GONE_NO_DRAFT = gettext_noop("{name} is not in the books any more, so no draft was made.")
LINE_OUT_OF_RANGE = gettext_noop(
    "One order line can ask for 1 to {most}; {qty} of {name} is outside that, so no draft was made.")
NOT_CARRIED_NOTHING_CHANGED = gettext_noop("The store does not carry {words!r}; nothing was changed.")
COULD_MEAN = gettext_noop("The owner's words could mean {names}; ask which one. Nothing was changed.")
NOT_NAMED = gettext_noop(
    "{field}: {words!r} is not a product the owner named this turn, so nothing was changed; ask which product.")
